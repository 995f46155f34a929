import VoiceTestKit
import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceMediaTypes
import VoiceSIP
import VoiceTestAudio
import VoiceRTP
import VoiceSupport
import XCTest

@testable import VoiceCore

/// A call's media when the peer's re-INVITE changes what was negotiated: the peer moved to a new
/// address and port, with a new codec and a new SRTP key. Our running stream follows: it sends
/// there, in the new codec, and decrypts with the new key; a hold in between keeps the address
/// the media followed.
///
/// It runs in virtual time: both sides' streams on an embedded engine and its in-memory network,
/// their devices on its audio clock.
final class SIPCallMediaRenegotiationTests: XCTestCase {
    let ours = TestSignals.multiTone([(523, 6_000), (1_250, 3_000)], seconds: 2)
    let theirs = TestSignals.multiTone([(440, 6_000), (2_100, 2_000)], seconds: 2)
    private let engine = MediaEngine.embedded(network: InMemoryMediaNetwork())
    private var driver: Int?
    private var nextPort: UInt16 = 20_000

    override func setUp() {
        super.setUp()
        let engine = self.engine
        driver = PollingWait.installDriver { engine.advance(by: MediaTime(nanoseconds: Int64($0 * 1_000_000_000))) }
    }

    override func tearDown() {
        PollingWait.removeDriver(driver)
        super.tearDown()
    }

    private var pacing: SoftwareAudioPacing { engine.audioClock.map { .ticked(by: $0) } ?? .realTime }

    private static func negotiated(
        codec: MediaCodec, remotePort: UInt16, local: SRTPKeyMaterial, remote: SRTPKeyMaterial, direction: SDPDirection = .sendrecv
    ) -> SDPNegotiatedMedia {
        let address = SDPTransportAddress(host: "127.0.0.1", port: remotePort)
        return SDPNegotiatedMedia(
            codec: codec, payloadType: codec.defaultPayloadType, telephoneEventPayloadType: 101, ptime: 20, remoteRTP: address,
            remoteRTCP: address, rtcpMux: true, localKey: local, remoteKey: remote, direction: direction)
    }

    /// A port nobody has on the in-memory network.
    private func freePort() throws -> UInt16 {
        nextPort += 2
        return nextPort
    }

    func testAPeerThatMovesWithANewCodecAndKeyIsFollowedWithoutRestartingOurStream() throws {
        let suite = SRTPSuite.aesCM128HmacSHA1_80
        let ourKey = SRTPKeyMaterial.random(for: suite)
        let theirFirstKey = SRTPKeyMaterial.random(for: suite)
        let theirNewKey = SRTPKeyMaterial.random(for: suite)
        let ourDevice = BufferAudioDevice(captureSamples: ours, loop: true, recordingCapacity: 48_000 * 20, pacing: pacing)
        let ourPort = try freePort()
        let media = SIPCallMedia(localHost: "127.0.0.1", localPort: ourPort, audioDevice: ourDevice, engine: engine)
        defer { media.stop() }

        // The peer before it moved: Opus.
        let before = BufferAudioDevice(captureSamples: theirs, loop: true, recordingCapacity: 48_000 * 20, pacing: pacing)
        let beforePort = try freePort()
        let peerBefore = SIPCallMedia(localHost: "127.0.0.1", localPort: beforePort, audioDevice: before, engine: engine)
        try media.apply(Self.negotiated(codec: .opus(OpusSettings()), remotePort: beforePort, local: ourKey, remote: theirFirstKey))
        try peerBefore.apply(Self.negotiated(codec: .opus(OpusSettings()), remotePort: ourPort, local: theirFirstKey, remote: ourKey))
        let stream = try XCTUnwrap(media.stream)
        XCTAssertTrue(PollingWait.until(timeout: 5) { stream.stats.packetsReceived > 25 }, "the call is under way")

        // It moves: a new port, G.711, a new key (its re-INVITE), and the old one goes silent.
        peerBefore.stop()
        let after = BufferAudioDevice(captureSamples: theirs, loop: true, recordingCapacity: 48_000 * 20, pacing: pacing)
        let afterPort = try freePort()
        let peerAfter = SIPCallMedia(localHost: "127.0.0.1", localPort: afterPort, audioDevice: after, engine: engine)
        defer { peerAfter.stop() }
        try peerAfter.apply(Self.negotiated(codec: .pcmu, remotePort: ourPort, local: theirNewKey, remote: ourKey))
        try media.apply(Self.negotiated(codec: .pcmu, remotePort: afterPort, local: ourKey, remote: theirNewKey))
        XCTAssertTrue(media.stream === stream, "the same stream runs on")
        XCTAssertTrue(PollingWait.until(timeout: 5) { stream.stats.renegotiations == 1 && stream.stats.codec == "PCMU" })
        // Then holds and resumes with the same SDP address: nothing moves.
        try media.apply(Self.negotiated(codec: .pcmu, remotePort: afterPort, local: ourKey, remote: theirNewKey, direction: .sendonly))
        try media.apply(Self.negotiated(codec: .pcmu, remotePort: afterPort, local: ourKey, remote: theirNewKey))
        PollingWait.sleep(1.5)  // audio after the move: a window, not synchronisation

        let stats = stream.stats
        XCTAssertEqual(stats.renegotiations, 1, "the hold changed no codec or key")
        XCTAssertEqual(stats.remoteRTPAddress, try SocketAddress(host: "127.0.0.1", port: Int(afterPort)))
        let heard = SpectralSimilarity(playedInALoop: theirs, in: Array(ourDevice.recordedSamples.suffix(48_000)))
        XCTAssertGreaterThan(heard.score, 0.75, "we hear the moved peer in its new codec: \(heard)")
        let reached = SpectralSimilarity(playedInALoop: ours, in: Array(after.recordedSamples.suffix(48_000)))
        XCTAssertGreaterThan(reached.score, 0.75, "the moved peer hears us at its new address: \(reached)")
    }

    /// A peer that only listens (a browser's receive-only page, a recorder) offers `recvonly`:
    /// our `sendonly` answer sends what we capture, not the silence of a hold, and the
    /// listener, `recvonly`, plays it while sending silence itself.
    func testASendOnlyAnswerToAListenerSendsRealAudio() throws {
        let suite = SRTPSuite.aesCM128HmacSHA1_80
        let (ourKey, theirKey) = (SRTPKeyMaterial.random(for: suite), SRTPKeyMaterial.random(for: suite))
        let ourDevice = BufferAudioDevice(captureSamples: ours, loop: true, recordingCapacity: 48_000 * 10, pacing: pacing)
        let listenerDevice = BufferAudioDevice(captureSamples: theirs, loop: true, recordingCapacity: 48_000 * 10, pacing: pacing)
        let (ourPort, listenerPort) = (try freePort(), try freePort())
        let media = SIPCallMedia(localHost: "127.0.0.1", localPort: ourPort, audioDevice: ourDevice, engine: engine)
        let listener = SIPCallMedia(localHost: "127.0.0.1", localPort: listenerPort, audioDevice: listenerDevice, engine: engine)
        defer {
            media.stop()
            listener.stop()
        }
        try media.apply(Self.negotiated(codec: .opus(OpusSettings()), remotePort: listenerPort, local: ourKey, remote: theirKey, direction: .sendonly))
        try listener.apply(Self.negotiated(codec: .opus(OpusSettings()), remotePort: ourPort, local: theirKey, remote: ourKey, direction: .recvonly))
        PollingWait.sleep(2)
        let heard = SpectralSimilarity(playedInALoop: ours, in: Array(listenerDevice.recordedSamples.suffix(48_000)))
        XCTAssertGreaterThan(heard.score, 0.75, "the listener hears us: \(heard)")
        let back = ourDevice.recordedSamples.suffix(48_000).map { abs(Int($0)) }.max() ?? 0
        XCTAssertLessThan(back, 100, "the listener sends silence")
    }
}
