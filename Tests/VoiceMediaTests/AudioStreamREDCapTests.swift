import VoiceEmbedded
import XCTest
import VoiceTestKit
import VoiceTestAudio
import VoiceMediaTypes
@testable import VoiceRTP
import VoiceSupport

/// Our RED under a peer's bandwidth limit (its `b=TIAS`; real Opus, virtual time): the primary
/// frame and its copies share it, so the encoder's bitrate falls to the primary's share, and a
/// limit too small for two copies gets one, or none.
final class AudioStreamREDCapTests: XCTestCase {
    let speech = TestSignals.speechLike(seconds: 3)

    private func sending(cap: Int?) throws -> (a: AudioStreamStats, b: AudioStreamStats, seconds: Double) {
        let call = try LoopbackCall.virtual(signalA: speech, signalB: speech, loop: true) { c in
            c.redPayloadType = 63
            c.redSending = .always(depth: 2)
            c.peerBandwidthLimit = cap
        }
        try call.start()
        PollingWait.sleep(1)
        let first = call.a.stats
        PollingWait.sleep(6)
        let last = call.a.stats, heard = call.b.stats
        call.stop()
        var delta = last
        delta.bytesSent -= first.bytesSent
        delta.redPacketsSent -= first.redPacketsSent
        delta.redBlocksSent -= first.redBlocksSent
        return (delta, heard, 6)
    }

    func testTwoCopiesUnderAWideCapLowerThePrimaryToAThird() throws {
        let (a, b, seconds) = try sending(cap: 96_000)
        XCTAssertEqual(a.redDepth, 2)
        XCTAssertEqual(a.sendBitrate, 32_000, "a third of the cap")
        let rate = Double(a.bytesSent) * 8 / seconds
        XCTAssertLessThanOrEqual(rate, 96_000 * 1.05, "payload within the cap")
        XCTAssertGreaterThan(rate, 96_000 * 0.6, "and the copies really go")
        XCTAssertGreaterThan(a.redBlocksSent, a.redPacketsSent * 3 / 2, "mostly two copies a packet")
        XCTAssertGreaterThan(b.redPacketsReceived, 250)
    }

    func testAMiddleCapGetsOneCopyAndANarrowOneNone() throws {
        let middle = try sending(cap: 64_000)
        XCTAssertEqual(middle.a.redDepth, 1, "two copies would leave the primary 21 kbps")
        XCTAssertEqual(middle.a.sendBitrate, 32_000)
        XCTAssertLessThanOrEqual(Double(middle.a.bytesSent) * 8 / middle.seconds, 64_000 * 1.05)
        let narrow = try sending(cap: 32_000)
        XCTAssertEqual(narrow.a.redDepth, 0)
        XCTAssertEqual(narrow.a.redPacketsSent, 0)
    }

    func testWithoutACapThePrimaryKeepsItsBitrate() throws {
        let (a, _, _) = try sending(cap: nil)
        XCTAssertEqual(a.redDepth, 2)
        XCTAssertGreaterThanOrEqual(a.sendBitrate, OpusSettings.voice.bitrate)
        XCTAssertGreaterThan(a.redBlocksSent, a.redPacketsSent * 3 / 2)
    }
}
