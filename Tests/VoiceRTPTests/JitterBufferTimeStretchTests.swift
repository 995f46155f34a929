import XCTest
@testable import VoiceRTP
import VoiceSupport
import VoiceMediaTypes

/// Delay adaptation by time-scale modification, on a virtual clock that follows the output: an
/// accelerated packet plays 5 ms shorter and a stretched one 5 ms longer (a stand-in for the
/// pitch period ``TimeStretch`` takes out or puts in), so the delay really moves.
final class JitterBufferTimeStretchTests: XCTestCase {
    /// A harness whose buffer starts `ms` behind, with `packets` of a clean 20 ms stream queued.
    static func startingBehind(_ ms: Int64, packets: Int) -> JitterHarness {
        var c = JitterBufferConfiguration()
        c.initialDelay = .milliseconds(ms)
        var h = JitterHarness(c)
        h.send(jitterTestStream(count: packets))
        return h
    }

    func testACleanLinkShedsTheStartUpDelayWithoutDroppingOrInsertingAFrame() {
        var h = Self.startingBehind(100, packets: 500)
        h.runPacedByOutput(until: .seconds(9.5))
        let s = h.buffer.stats
        XCTAssertEqual(h.played, Array(0..<h.played.count), "every packet, in order")
        XCTAssertGreaterThan(h.played.count, 460)
        XCTAssertEqual(s.discarded + s.removedFrames + s.insertedFrames + s.concealedFrames + s.late, 0, "\(s)")
        XCTAssertGreaterThan(s.acceleratedFrames, 5)
        XCTAssertEqual(s.targetDelay, .milliseconds(20), "a clean link: one frame for FEC, at minDelay")
        // Settled inside the band: 5 ms either side of the target.
        XCTAssertGreaterThanOrEqual(s.playoutDelay, s.targetDelay - .milliseconds(5))
        XCTAssertLessThan(s.playoutDelay, s.targetDelay + .milliseconds(5))
        // Shedding 80 ms a step at a time: far from the band voiced speech may be cut too, near it only pauses.
        let urgent = h.outputs.filter { if case .accelerate(_, _, true) = $0 { true } else { false } }.count
        XCTAssertGreaterThan(urgent, 0)
        XCTAssertLessThan(urgent, s.acceleratedFrames)
    }

    func testRisingJitterIsFollowedByStretchingAndCalmByAccelerating() {
        var h = JitterHarness()
        var rng = JitterTestRandom(state: 5)
        // 4 s calm, 8 s of 0…40 ms uniform jitter, 8 s calm again.
        h.send(
            jitterTestStream(count: 1_000) { n in
                (200..<600).contains(n) ? .microseconds(20_000 + rng.int(in: 0...40_000)) : .milliseconds(20)
            })
        h.runPacedByOutput(until: .seconds(4))
        let calm = h.buffer.stats
        h.runPacedByOutput(until: .seconds(12))
        let noisy = h.buffer.stats
        h.runPacedByOutput(until: .seconds(19.5))
        let settled = h.buffer.stats

        XCTAssertGreaterThan(noisy.targetDelay, .milliseconds(50))
        XCTAssertGreaterThan(noisy.stretchedFrames, calm.stretchedFrames, "the delay grew by stretching")
        XCTAssertGreaterThanOrEqual(noisy.playoutDelay, noisy.targetDelay - .milliseconds(15))
        XCTAssertLessThan(Double(noisy.late + noisy.underrunFrames - calm.late - calm.underrunFrames), 0.05 * 400)
        XCTAssertEqual(noisy.removedFrames, 0)

        XCTAssertLessThan(settled.targetDelay, .milliseconds(25))
        XCTAssertGreaterThan(settled.acceleratedFrames, noisy.acceleratedFrames, "and shrank by accelerating")
        XCTAssertLessThan(settled.playoutDelay, settled.targetDelay + .milliseconds(5))
        XCTAssertEqual(settled.removedFrames + settled.discarded, 0, "no packet dropped to shrink the delay")
        XCTAssertEqual(h.played, h.played.sorted())
        XCTAssertEqual(Set(h.played).count, h.played.count)
    }

    func testALossWhoseSuccessorIsLateIsConcealedInPlaceNotInsertedAndShedAgain() {
        // On a clean link whose transit grows by 2 ms at packet 200, the buffer settles a few ms
        // under its target (inside the band: nothing to change). Then the stream loses packet
        // 300, and 301 comes 13 ms late: at 300's turn nothing is buffered at all. Within the
        // band that is a loss, not a delay too short: conceal it where it was, and 301 plays on
        // time after it.
        // (Taken for an underrun, the stream would be pushed a frame later and the 20 ms shed
        // again by accelerating: two time warps for one lost packet.)
        var c = JitterBufferConfiguration()
        c.initialDelay = .milliseconds(20)
        var h = JitterHarness(c)
        var packets = jitterTestStream(count: 500) { n in .milliseconds(n == 301 ? 45 : n >= 200 ? 32 : 30) }
        packets.removeAll { $0.index == 300 }
        h.send(packets)
        h.runPacedByOutput(until: .seconds(5.9))
        let before = h.buffer.stats
        h.runPacedByOutput(until: .seconds(9.5))
        let after = h.buffer.stats
        XCTAssertEqual(before.stretchedFrames + before.insertedFrames, 0, "\(before)")
        XCTAssertLessThan(before.playoutDelay, before.targetDelay, "under the target, in the band: \(before)")
        XCTAssertEqual(h.played, Array(0..<300) + Array(301..<h.played.count + 1), "all but the lost one, in order")
        XCTAssertEqual(after.insertedFrames, 0, "\(after)")
        XCTAssertEqual(after.concealedFrames + after.underrunFrames, 1, "one frame concealed for the lost one: \(after)")
        XCTAssertEqual(after.acceleratedFrames, before.acceleratedFrames, "nothing to shed afterwards: \(after)")
        XCTAssertLessThan(after.playoutDelay, after.targetDelay + .milliseconds(5), "not a frame later: \(after)")
    }

    func testWhenTimeScalingCannotMoveTheDelayAPacketIsStillDroppedAfterPatience() {
        // A fixed 20 ms clock: accelerating changes nothing (as when every frame is loud and
        // unvoiced), so the delay stays two frames above target and the fallback drops packets.
        var h = Self.startingBehind(120, packets: 400)
        h.run(until: .seconds(7.5))
        let s = h.buffer.stats
        XCTAssertGreaterThan(s.acceleratedFrames, 0)
        XCTAssertGreaterThan(s.removedFrames, 0)
        XCTAssertLessThan(s.playoutDelay, s.targetDelay + .milliseconds(40))
    }

    func testFramesWithAGapOrLossAreNeverTimeScaled() {
        // Recovery and concealment stand in for missing audio; only a whole packet is scaled.
        var c = JitterBufferConfiguration()
        c.initialDelay = .milliseconds(100)
        var h = JitterHarness(c)
        var packets = jitterTestStream(count: 200)
        packets.removeAll { $0.index % 10 == 5 }
        h.send(packets)
        h.runPacedByOutput(until: .seconds(4))
        XCTAssertFalse(h.played.contains { $0 % 10 == 5 })
        XCTAssertGreaterThan(h.recovered.count, 10)
        XCTAssertGreaterThan(h.accelerated, 0)
    }
}
