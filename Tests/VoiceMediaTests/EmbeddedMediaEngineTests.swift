import VoiceEmbedded
import Foundation
import VoiceMediaTypes
import VoiceRTP
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceMedia

/// The embedded engine: the real streams (Opus, SRTP, jitter buffer, devices) on an in-memory
/// network in virtual time. What takes a minute of real time takes a fraction of a second, and
/// the same run gives the same result every time.
final class EmbeddedMediaEngineTests: XCTestCase {
    private let speech = TestSignals.speechLike(seconds: 4)
    private let tones = TestSignals.multiTone([(440, 5_000), (1_250, 3_000), (3_100, 2_000)], seconds: 4)

    func testAMinuteOfCallAudioWithLossJitterAndANetworkMoveInVirtualTime() throws {
        let impairment = NetworkImpairment(lossRate: 0.05, jitter: .milliseconds(30), seed: 11)
        let call = try LoopbackCall.virtual(
            signalA: speech, signalB: tones, loop: true, impairmentAToB: impairment,
            impairmentBToA: NetworkImpairment(lossRate: 0.05, jitter: .milliseconds(30), seed: 12))
        let network = try XCTUnwrap(call.engine.network)
        let started = Date()
        try call.start()
        call.advance(by: .seconds(30))
        // A's host is renumbered: its port now sends from another address, and what is sent to
        // the old one is lost. B follows A's authenticated media there (symmetric RTP).
        let moved = try SocketAddress(host: "10.0.9.9", port: call.a.localAddress.port)
        try network.move(call.a.localAddress, to: moved)
        call.advance(by: .seconds(30))
        call.stop()
        let wall = Date().timeIntervalSince(started)
        let a = call.a.stats, b = call.b.stats
        XCTAssertEqual(b.remoteAddressSwitches, 1, "B follows A to its new address")
        XCTAssertEqual(b.remoteRTPAddress, moved)
        // 3,000 packets each way in 60 s, 5 % of them lost; the move costs at most a few.
        XCTAssertEqual(Double(b.packetsReceived), 2_850, accuracy: 60, "\(b.packetsReceived) at B")
        XCTAssertEqual(Double(a.packetsReceived), 2_850, accuracy: 60, "\(a.packetsReceived) at A")
        XCTAssertEqual(Double(b.packetsLost), 150, accuracy: 50)
        XCTAssertEqual(a.srtpAuthFailures + b.srtpAuthFailures, 0)
        // What each side played is what the other sent, recognisably, both before and after the move.
        let atB = call.deviceB.recordedSamples, atA = call.deviceA.recordedSamples
        XCTAssertEqual(Double(atB.count), 48_000 * 60, accuracy: 48_000 * 0.1, "the device played a minute")
        for (name, recording, signal) in [("A→B", atB, speech), ("B→A", atA, tones)] {
            let before = SpectralSimilarity(playedInALoop: signal, in: Array(recording[(48_000 * 20)..<(48_000 * 28)]))
            let after = SpectralSimilarity(playedInALoop: signal, in: Array(recording[(48_000 * 40)..<(48_000 * 48)]))
            XCTAssertGreaterThan(before.score, 0.8, "\(name) before the move: \(before)")
            XCTAssertGreaterThan(after.score, 0.8, "\(name) after the move: \(after)")
        }
        print("a minute of call in virtual time took \(String(format: "%.2f", wall)) s of wall time")
    }

    /// G.722 end to end: SRTP, loss, jitter, the jitter buffer and its time-scaling, all on
    /// RFC 3551's 8 kHz RTP clock while the audio is 16 kHz. The same impairment over PCMU (also
    /// an 8 kHz clock) gives the same interarrival jitter, so the timestamps are read right; a
    /// 6 kHz tone, which G.711 cannot carry, arrives.
    func testG722CarriesWidebandAudioThroughTheJitterBufferAndTimeScaling() throws {
        let wideband = TestSignals.multiTone([(440, 5_000), (6_000, 3_000)], seconds: 4)
        func run(_ codec: MediaCodec) throws -> (AudioStreamStats, [Int16]) {
            let call = try LoopbackCall.virtual(
                codec: codec, signalA: wideband, signalB: speech, loop: true,
                impairmentAToB: NetworkImpairment(lossRate: 0.03, jitter: .milliseconds(40), seed: 21))
            try call.start()
            call.advance(by: .seconds(20))
            call.stop()
            return (call.b.stats, call.deviceB.recordedSamples)
        }
        let (b, heard) = try run(.g722)
        XCTAssertEqual(b.codec, "G722")
        XCTAssertEqual(b.payloadType, 9)
        XCTAssertEqual(Double(b.packetsReceived), 970, accuracy: 30, "50 packets a second, 3 % lost")
        XCTAssertEqual(b.bytesReceived, b.packetsReceived * 160, "160 bytes per 20 ms")
        // The buffer asks to recover each loss from the next packet; G.722 has no FEC, so the
        // stream conceals it instead.
        XCTAssertGreaterThan(b.jitterBuffer.concealedFrames + b.jitterBuffer.recoveredFrames, 10, "losses handled: \(b.jitterBuffer)")
        XCTAssertGreaterThan(b.timeStretchAddedSamples + b.timeStretchRemovedSamples, 0, "the buffer adapted by time-scaling")
        let (pcmu, _) = try run(.pcmu)
        XCTAssertGreaterThan(b.jitterMs, 5)
        XCTAssertEqual(b.jitterMs / pcmu.jitterMs, 1, accuracy: 0.2, "G.722 \(b.jitterMs) ms, PCMU \(pcmu.jitterMs) ms")
        let steady = heard[(48_000 * 10)..<(48_000 * 18)]
        let similarity = SpectralSimilarity(playedInALoop: wideband, in: Array(steady))
        XCTAssertGreaterThan(similarity.score, 0.8, "\(similarity)")
        XCTAssertGreaterThan(CodecTestSignal.amplitude(of: 6_000, in: steady, rate: 48_000), 1_500, "the 6 kHz tone arrives")
    }

    func testTheSameRunGivesTheSameResult() throws {
        func run() throws -> (AudioStreamStats, AudioStreamStats, [Int16]) {
            let call = try LoopbackCall.virtual(
                codec: .pcmu, signalA: speech, signalB: tones, impairmentAToB: NetworkImpairment(lossRate: 0.1, jitter: .milliseconds(40), seed: 3))
            try call.start()
            call.advance(by: .seconds(3))
            call.stop()
            return (call.a.stats, call.b.stats, call.deviceB.recordedSamples)
        }
        let (a1, b1, r1) = try run()
        let (a2, b2, r2) = try run()
        XCTAssertEqual(b1.packetsReceived, b2.packetsReceived)
        XCTAssertEqual(b1.packetsLost, b2.packetsLost)
        XCTAssertEqual(b1.jitterBuffer, b2.jitterBuffer)
        XCTAssertEqual(a1.packetsSent, a2.packetsSent)
        XCTAssertTrue(r1 == r2, "the same samples played")
        XCTAssertGreaterThan(b1.packetsLost, 5)
    }

    func testAStreamStoppedOnTheEmbeddedEngineSendsItsByeAtOnce() throws {
        let call = try LoopbackCall.virtual(signalA: speech, signalB: tones)
        let byes = Locked(0)
        try call.a.start(remote: call.b.localAddress, audioDevice: call.deviceA)
        try call.b.start(remote: call.a.localAddress, audioDevice: call.deviceB) { event in
            if event == .remoteBye { byes.withLock { $0 += 1 } }
        }
        call.advance(by: .seconds(1))
        call.a.stop()
        call.advance(by: .milliseconds(20))
        XCTAssertEqual(byes.withLock { $0 }, 1, "B heard A's BYE")
        XCTAssertGreaterThan(call.a.stats.rtcpSent, 0)
        call.b.stop()
        XCTAssertEqual(call.engine.stats.tasks, 0)
    }
}
