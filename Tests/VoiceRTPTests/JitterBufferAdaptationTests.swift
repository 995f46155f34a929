import XCTest
@testable import VoiceRTP
import VoiceSupport
import VoiceMediaTypes

/// Delay adaptation and whole-timeline properties, on scripted networks.
final class JitterBufferAdaptationTests: XCTestCase {
    func testTargetDelayRisesWithJitterAndFallsBackWhenItCalms() {
        var h = JitterHarness(.frameLevel)
        var rng = JitterTestRandom(state: 42)
        // 5 s of ±1 ms jitter around 50 ms, 10 s of ±40 ms, then 10 s of ±1 ms again.
        let packets = jitterTestStream(count: 1250) { n in
            let spread: Int64 = (250..<750).contains(n) ? 40_000 : 1_000
            return .microseconds(50_000 + rng.int(in: -spread...spread))
        }
        h.send(packets)
        h.run(until: .seconds(5))
        let calmStart = h.buffer.stats
        h.run(until: .seconds(10))
        let lateEarlyNoise = h.buffer.stats.late
        h.run(until: .seconds(15))
        let noisy = h.buffer.stats
        h.run(until: .seconds(25.1))
        let calm = h.buffer.stats

        XCTAssertLessThan(calmStart.targetDelay, .milliseconds(30))
        // ~95th percentile of an 80 ms spread plus a 20 ms frame of headroom.
        XCTAssertGreaterThan(noisy.targetDelay, .milliseconds(85))
        XCTAssertLessThan(noisy.targetDelay, .milliseconds(105))
        // The applied delay followed it up (within the hysteresis band) by inserting frames...
        XCTAssertGreaterThanOrEqual(noisy.playoutDelay, noisy.targetDelay - .milliseconds(20))
        XCTAssertLessThan(noisy.playoutDelay, noisy.targetDelay + .milliseconds(40))
        XCTAssertGreaterThan(noisy.insertedFrames, calmStart.insertedFrames)
        // ...so once adapted, few packets miss their slot.
        XCTAssertLessThan(Double(noisy.late - lateEarlyNoise), 0.1 * 250)
        XCTAssertGreaterThan(noisy.jitter, .milliseconds(10))

        // Calm again: the target drops back, the delay follows it down.
        XCTAssertLessThan(calm.targetDelay, .milliseconds(30))
        XCTAssertGreaterThanOrEqual(calm.targetDelay, .milliseconds(20))
        XCTAssertLessThan(calm.playoutDelay, .milliseconds(70))
        XCTAssertGreaterThan(calm.removedFrames, noisy.removedFrames)
        XCTAssertLessThan(calm.jitter, .milliseconds(5))
        XCTAssertEqual(h.played, h.played.sorted())
        XCTAssertEqual(Set(h.played).count, h.played.count)
    }

    func testTargetStaysWithinBounds() {
        var c = JitterBufferConfiguration()
        c.minDelay = .milliseconds(40)
        c.maxDelay = .milliseconds(120)
        var h = JitterHarness(c)
        var rng = JitterTestRandom(state: 3)
        // Wild jitter (0...500 ms) would ask for far more than maxDelay.
        h.send(jitterTestStream(count: 300) { _ in .microseconds(rng.int(in: 0...500_000)) })
        var targets: [MediaTime] = []
        for _ in 0..<300 {
            h.tick()
            targets.append(h.buffer.stats.targetDelay)
            h.now += .milliseconds(20)
        }
        XCTAssertTrue(targets.allSatisfy { $0 >= .milliseconds(40) && $0 <= .milliseconds(120) })
        XCTAssertEqual(targets.last, .milliseconds(120))
    }

    func testSpeechAdaptationIsRateLimited() {
        var c = JitterBufferConfiguration.frameLevel
        c.adaptationInterval = .milliseconds(200)
        var h = JitterHarness(c)
        var rng = JitterTestRandom(state: 11)
        h.send(jitterTestStream(count: 400) { _ in .microseconds(50_000 + rng.int(in: -60_000...60_000)) })
        var changes: [MediaTime] = []
        var last = 0
        for _ in 0..<400 {
            h.tick()
            let s = h.buffer.stats
            // Underrun growth is free (the frame is concealed anyway); count only speech steps.
            let speechSteps = s.insertedFrames + s.removedFrames - s.underrunFrames
            if speechSteps > last { changes.append(h.now) }
            last = max(last, speechSteps)
            h.now += .milliseconds(20)
        }
        XCTAssertGreaterThan(changes.count, 2)
        for (a, b) in zip(changes, changes.dropFirst()) {
            XCTAssertGreaterThanOrEqual(b - a, .milliseconds(200))
        }
    }

    func testDelayShrinksInDtxSilenceWithoutDroppingPackets() {
        var h = JitterHarness(JitterBufferTests.holding(200))
        // Talkspurts of 1.5 s with 300 ms DTX pauses, steady network: once the warm-up floor
        // lifts the 200 ms start-up delay is excess, and it is shed in the pauses.
        var packets: [JitterTestPacket] = []
        var seq: UInt16 = 0
        for spurt in 0..<5 {
            let start = Int64(spurt) * 1_800
            for n in 0..<75 {
                let sendMs = start + Int64(n) * 20
                packets.append(
                    JitterTestPacket(
                        index: Int(seq), seq: seq, ts: UInt32(sendMs * 48), marker: n == 0,
                        arrival: .milliseconds(sendMs + 30)))
                seq &+= 1
            }
        }
        h.send(packets)
        h.run(until: .seconds(9.5))
        let s = h.buffer.stats
        XCTAssertEqual(h.played, Array(0..<375))
        XCTAssertEqual(s.discarded, 0)
        XCTAssertGreaterThan(s.removedFrames, 3)
        XCTAssertLessThan(s.playoutDelay, .milliseconds(60))
        XCTAssertEqual(s.concealedFrames, 0)
    }

    /// Steady packets; every fifth of 20..<50 comes 80 ms late (it is recovered from its
    /// successor, no underrun), which raises the target well above the delay in force.
    private func lateBurstRaisingTheTarget(count: Int = 80) -> [JitterTestPacket] {
        var packets = jitterTestStream(count: count)
        for n in stride(from: 20, to: 50, by: 5) { packets[n].arrival += .milliseconds(80) }
        return packets
    }

    func testTalkspurtStartAfterAPauseGrowsDelayWithSilence() {
        var c = JitterBufferTests.steady
        c.adaptationInterval = .seconds(10)  // no growth during speech in this test
        var h = JitterHarness(c)
        // After packet 54 the sender pauses 100 ms (DTX: the timestamp jumps five frames, the
        // sequence does not), and marks packet 55, the next talkspurt's first.
        var packets = lateBurstRaisingTheTarget()
        for n in 55..<80 {
            packets[n].ts &+= 5 * 960
            packets[n].arrival += .milliseconds(100)
        }
        packets[55].marker = true
        h.send(packets)
        h.run(until: .seconds(2.2))
        let s = h.buffer.stats
        XCTAssertGreaterThan(s.targetDelay, .milliseconds(80))
        guard let at54 = h.outputs.firstIndex(of: .packet(54, duration: 960)),
            let at55 = h.outputs.firstIndex(of: .packet(55, duration: 960))
        else { return XCTFail("54 and 55 not played") }
        XCTAssertEqual(h.recovered, Array(stride(from: 21, to: 51, by: 5)))
        // The pause (the buffer ran dry, then the timestamp gap) is longer than the sender's by
        // what the delay grew; the talkspurt then plays whole.
        let pause = Array(h.outputs[(at54 + 1)..<at55])
        XCTAssertFalse(pause.contains { if case .packet = $0 { true } else { false } }, "\(pause)")
        XCTAssertGreaterThan(pause.count, 5, "the delay grew in the pause")
        XCTAssertEqual(Array(h.outputs[at55...].prefix(25)), (55..<80).map { .packet($0, duration: 960) }, "then the talkspurt plays")
    }

    func testAMarkerInTheMiddleOfSpeechStartsNoTalkspurt() {
        var c = JitterBufferTests.steady
        c.adaptationInterval = .seconds(10)  // no growth during speech in this test
        var h = JitterHarness(c)
        // Packet 55 is marked but follows 54 with no pause: a stack that marks at random.
        var packets = lateBurstRaisingTheTarget()
        packets[55].marker = true
        h.send(packets)
        h.run(until: .seconds(2))
        let s = h.buffer.stats
        XCTAssertGreaterThan(s.targetDelay, .milliseconds(80), "the delay is below target when 55 comes")
        guard let at55 = h.outputs.firstIndex(of: .packet(55, duration: 960)) else { return XCTFail("55 not played") }
        XCTAssertEqual(h.outputs[at55 - 1], .packet(54, duration: 960), "no silence inserted in the middle of speech")
        guard let at79 = h.outputs.firstIndex(of: .packet(79, duration: 960)) else { return XCTFail("79 not played") }
        XCTAssertFalse(
            h.outputs[at55..<at79].contains { if case .packet = $0 { false } else { true } }, "nothing but packets from 55 on")
    }

    func testAPeerThatMarksEveryPacketAdaptsNoFasterThanSpeech() {
        var c = JitterBufferTests.steady
        c.adaptationInterval = .milliseconds(500)
        var h = JitterHarness(c)
        var packets = lateBurstRaisingTheTarget(count: 150)
        for n in packets.indices { packets[n].marker = true }
        h.send(packets)
        h.run(until: .seconds(3.5))
        // Speech below target: no silence once playout started, and the delay grown by at most
        // one frame per 500 ms (concealment, as any speech adaptation without time-scaling).
        guard let first = h.outputs.firstIndex(of: .packet(0, duration: 960)),
            let last = h.outputs.firstIndex(of: .packet(149, duration: 960))
        else { return XCTFail("not played through") }
        let during = h.outputs[first...last]
        XCTAssertFalse(during.contains { if case .silence = $0 { true } else { false } }, "no silence in the middle of speech")
        let grown = during.filter { if case .conceal = $0 { true } else { false } }.count
        XCTAssertLessThanOrEqual(grown, 7, "\(grown) frames inserted in 3 s")
    }

    func testTimelineStaysContinuousUnderSeededLossReorderAndJitter() {
        for seed: UInt64 in [1, 2, 3, 4, 5] {
            var rng = JitterTestRandom(state: seed)
            var packets: [JitterTestPacket] = []
            for p in jitterTestStream(
                count: 3000, startSeq: UInt16(truncatingIfNeeded: seed &* 21_841),
                startTs: UInt32(truncatingIfNeeded: seed &* 2_654_435_761),
                delay: { _ in .microseconds(40_000 + rng.int(in: 0...70_000)) })
            {
                let r = rng.unit()
                if r < 0.05 { continue }  // lost
                packets.append(p)
                if r > 0.98 {  // duplicated, a bit later
                    var d = p
                    d.arrival += .microseconds(rng.int(in: 0...50_000))
                    packets.append(d)
                }
                if r > 0.96, r <= 0.98 { packets[packets.count - 1].arrival += .milliseconds(150) }  // badly late
            }
            var h = JitterHarness()
            h.send(packets)
            var lastStamp: UInt32?
            var playedSet = Set<Int>()
            let ticks = 3100
            for _ in 0..<ticks {
                let before = h.buffer.stats
                h.deliverDue()
                let stampBefore = h.buffer.playoutTimestamp
                let o = h.tick()
                let after = h.buffer.stats
                XCTAssertEqual(o.duration, 960, "seed \(seed): every output covers exactly one tick")
                // The playout position advances by exactly what was output, minus inserted
                // frames, plus removed ones: no gaps, no overlaps.
                if let s0 = stampBefore, let s1 = h.buffer.playoutTimestamp {
                    let inserted = after.insertedFrames - before.insertedFrames
                    let removed = after.removedFrames - before.removedFrames
                    XCTAssertEqual(Int(s1 &- s0), o.duration - 960 * inserted + 960 * removed, "seed \(seed)")
                }
                if let i = o.playedIndex {
                    XCTAssertTrue(playedSet.insert(i).inserted, "seed \(seed): packet \(i) played twice")
                }
                if case .recover(let i, _) = o {
                    XCTAssertFalse(playedSet.contains(i), "seed \(seed): recovery source already played")
                }
                lastStamp = h.buffer.playoutTimestamp ?? lastStamp
                h.now += .milliseconds(20)
            }
            XCTAssertNotNil(lastStamp)
            XCTAssertEqual(h.outputs.reduce(0) { $0 + $1.duration }, ticks * 960)
            XCTAssertEqual(h.played, h.played.sorted(), "seed \(seed): played in order")
            // Every accepted packet is accounted for exactly once.
            let s = h.buffer.stats
            let accepted = h.insertResults.filter { $0.result == .accepted }.count
            let lateAtInsert = h.insertResults.filter { $0.result == .late }.count
            XCTAssertEqual(accepted, s.playedPackets + (s.late - lateAtInsert) + s.discarded + s.bufferedPackets, "seed \(seed)")
            XCTAssertEqual(h.insertResults.filter { $0.result == .duplicate }.count, s.duplicates)
            XCTAssertEqual(s.received, h.insertResults.count)
            XCTAssertGreaterThan(Double(s.playedPackets), 0.85 * 3000, "seed \(seed): \(s)")
            XCTAssertEqual(s.resyncs + s.outOfRange + s.tooLarge, 0)
            // The script really exercised recovery, concealment, late and duplicate handling.
            XCTAssertTrue(s.recoveredFrames > 0 && s.concealedFrames > 0 && s.late > 0 && s.duplicates > 0, "\(s)")
        }
    }
}
