import VoiceEmbedded
import Foundation
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
import VoiceTestAudio
import VoiceTestKit
import XCTest

@testable import VoiceMedia

/// Some WebRTC stacks set the RTP marker on every audio packet. Our playout must not take each
/// one for a talkspurt start (and insert 20 ms of silence before it whenever the delay is a
/// little below target): spoken audio from such a peer, through a few milliseconds of seeded
/// jitter on the virtual clock, must score as the same audio marked only where talkspurts start.
final class MarkerBitPlayoutTests: XCTestCase {
    /// What B played of A's looped speech, with A's packets marked as `markEvery` says.
    private func received(_ speech: [Int16], markEvery: Bool) throws -> (samples: [Int16], stats: AudioStreamStats) {
        let call = try LoopbackCall.virtual(
            encrypted: false, signalA: speech, signalB: [Int16](repeating: 0, count: 48_000), loop: true)
        let network = try XCTUnwrap(call.engine.network)
        let a = call.a.localAddress
        // Seeded jitter that swings every 1.5 s between a calm 0–3 ms and a busy 0–25 ms: the
        // receiver's target delay rises and falls with it, so its delay is now and then below
        // target with speech playing (as a loaded loopback's tick jitter makes it).
        let random = Locked(SplitMix64(seed: 17))
        network.setConditions { source, _, sentAt in
            guard source == a else { return .zero }
            let busy = (sentAt.nanoseconds / 1_500_000_000) % 2 == 1
            let spread = busy ? 25_000_000 : 3_000_000
            return MediaTime(nanoseconds: random.withLock { Int64.random(in: 0...Int64(spread), using: &$0) })
        }
        if markEvery {
            // Plain RTP from A: set the marker (byte 1, top bit) on each RTP packet (RFC 5761:
            // what reads as payload type 64–95 there is RTCP).
            network.setRewriter { source, datagram in
                guard source == a, datagram.count >= 12, datagram[0] >> 6 == 2, !(64...95).contains(datagram[1] & 0x7F) else { return }
                datagram[1] |= 0x80
            }
        }
        try call.start()
        call.advance(by: .seconds(24))
        call.stop()
        return (call.deviceB.recordedSamples, call.b.stats)
    }

    func testAPeerThatMarksEveryPacketScoresAsOneThatMarksTalkspurtStarts() throws {
        let scorer = try requirePESQScorer()
        defer { scorer.cleanUp() }
        let speech = try scorer.shortSpeech()
        let (normal, normalStats) = try received(speech, markEvery: false)
        let (marked, markedStats) = try received(speech, markEvery: true)
        let normalScore = try scorer.score(loopOf: speech, in: normal, name: "talkspurt-markers").score
        let markedScore = try scorer.score(loopOf: speech, in: marked, name: "every-packet-marked").score
        print("PESQ-WB: talkspurt markers \(normalScore), every packet marked \(markedScore)")
        XCTAssertGreaterThan(normalScore, 3.5, "the reference run itself is clean")
        XCTAssertEqual(markedScore, normalScore, accuracy: 0.05, "PESQ-WB marked on every packet \(markedScore), on talkspurts \(normalScore)")
        // No more silence inserted than the reference run needed (one frame of slack).
        XCTAssertLessThanOrEqual(
            markedStats.jitterBuffer.insertedFrames, normalStats.jitterBuffer.insertedFrames + 1,
            "inserted: marked \(markedStats.jitterBuffer.insertedFrames), normal \(normalStats.jitterBuffer.insertedFrames)")
    }
}
