import XCTest
@testable import VoiceRTP
import VoiceSupport
import VoiceMediaTypes

final class JitterBufferTests: XCTestCase {
    /// A configuration whose warm-up floor equals the settled target, so a clean stream needs
    /// no delay adjustment at all. These tests tick a fixed 20 ms clock, on which shortening or
    /// lengthening a frame changes nothing, so they run with frame-level adaptation
    /// (``JitterBufferTimeStretchTests`` covers time-scaling, with the clock following the output).
    static var steady: JitterBufferConfiguration {
        var c = JitterBufferConfiguration.frameLevel
        c.initialDelay = .milliseconds(40)
        return c
    }

    /// A configuration that holds about `ms` of audio during the short scripted streams
    /// (they end before the warm-up floor lifts).
    static func holding(_ ms: Int64) -> JitterBufferConfiguration {
        var c = JitterBufferConfiguration.frameLevel
        c.initialDelay = .milliseconds(ms)
        return c
    }

    func testSilenceBeforeFirstPacketAndWhileBuffering() {
        var h = JitterHarness()
        XCTAssertEqual(h.tick(), .silence(duration: 960))
        h.send(jitterTestStream(count: 10))
        h.run(until: .milliseconds(80))
        // First packet arrives at 30 ms; nothing plays before it has waited the 60 ms initial delay.
        XCTAssertEqual(
            h.outputs.prefix(5),
            [
                .silence(duration: 960), .silence(duration: 960), .silence(duration: 960),
                .silence(duration: 960), .silence(duration: 960),
            ])
        XCTAssertNil(h.buffer.playoutTimestamp)
        h.run(until: .milliseconds(120))
        XCTAssertEqual(h.played.first, 0)
        XCTAssertEqual(h.buffer.stats.silenceFrames, h.silences)
    }

    func testInOrderSteadyStreamPlaysEveryPacketOnceInOrder() {
        var h = JitterHarness(Self.steady)
        h.send(jitterTestStream(count: 300))
        h.run(until: .seconds(6.2))
        XCTAssertEqual(h.played, Array(0..<300))
        XCTAssertTrue(h.afterStart.prefix(300).allSatisfy { if case .packet = $0 { true } else { false } })
        let s = h.buffer.stats
        XCTAssertEqual(s.playedPackets, 300)
        XCTAssertEqual(s.received, 300)
        XCTAssertEqual(s.late + s.duplicates + s.discarded + s.concealedFrames + s.recoveredFrames, 0)
        XCTAssertEqual(s.targetDelay, .milliseconds(20), "no jitter: one frame of headroom, at minDelay")
        XCTAssertTrue(h.insertResults.allSatisfy { $0.result == .accepted })
    }

    func testReorderedPacketsWithinDelayPlayInOrder() {
        var h = JitterHarness(Self.steady)
        var packets = jitterTestStream(count: 100)
        for n in stride(from: 10, to: 90, by: 10) {
            // n+1 overtakes n by 15 ms; n+2 arrives before n+1 and n.
            packets[n].arrival += .milliseconds(25)
            packets[n + 1].arrival += .milliseconds(10)
        }
        h.send(packets)
        h.run(until: .seconds(2.3))
        XCTAssertEqual(h.played, Array(0..<100))
        XCTAssertEqual(h.buffer.stats.late, 0)
        XCTAssertEqual(h.buffer.stats.concealedFrames, 0)
    }

    func testDuplicatesAreCountedAndDropped() {
        var h = JitterHarness(Self.steady)
        var packets = jitterTestStream(count: 30)
        var again5 = packets[5]
        again5.arrival = packets[5].arrival + .milliseconds(1)  // still buffered
        var again2 = packets[2]
        again2.arrival = .milliseconds(200)  // already played
        packets += [again5, again2]
        h.send(packets)
        h.run(until: .seconds(0.8))
        XCTAssertEqual(h.result(of: 5), [.accepted, .duplicate])
        XCTAssertEqual(h.result(of: 2), [.accepted, .duplicate])
        XCTAssertEqual(h.played, Array(0..<30))
        XCTAssertEqual(h.buffer.stats.duplicates, 2)
    }

    func testSingleLossWithNextBufferedIsRecoveredFromNext() {
        var h = JitterHarness(Self.steady)
        h.send(jitterTestStream(count: 30).filter { $0.index != 12 })
        h.run(until: .seconds(0.8))
        let start = h.afterStart
        XCTAssertEqual(
            Array(start[start.startIndex + 11...start.startIndex + 13]),
            [.packet(11, duration: 960), .recover(13, duration: 960), .packet(13, duration: 960)])
        XCTAssertEqual(h.played, Array(0..<30).filter { $0 != 12 })
        XCTAssertEqual(h.buffer.stats.recoveredFrames, 1)
        XCTAssertEqual(h.buffer.stats.concealedFrames, 0)
    }

    func testLatePacketIsDroppedAndItsSuccessorServesAsFecSource() {
        var h = JitterHarness(Self.steady)
        var packets = jitterTestStream(count: 30)
        packets[12].arrival += .milliseconds(150)
        h.send(packets)
        h.run(until: .seconds(0.8))
        XCTAssertEqual(h.result(of: 12), [.late])
        XCTAssertEqual(h.recovered, [13])
        XCTAssertEqual(h.played, Array(0..<30).filter { $0 != 12 })
        XCTAssertEqual(h.buffer.stats.late, 1)
        XCTAssertEqual(h.buffer.stats.playedPackets, 29)
    }

    func testBurstLossIsConcealedThenRecoveredFromNext() {
        // Enough delay that packet 13 is buffered when frame 10 is due: the loss is known.
        var h = JitterHarness(Self.holding(100))
        h.send(jitterTestStream(count: 30).filter { !(10...12).contains($0.index) })
        h.run(until: .seconds(0.8))
        let start = h.afterStart
        XCTAssertEqual(
            Array(start[start.startIndex + 9...start.startIndex + 14]),
            [
                .packet(9, duration: 960), .conceal(duration: 960), .conceal(duration: 960),
                .recover(13, duration: 960), .packet(13, duration: 960), .packet(14, duration: 960),
            ])
        XCTAssertEqual(h.buffer.stats.concealedFrames, 2)
        XCTAssertEqual(h.buffer.stats.recoveredFrames, 1)
        XCTAssertEqual(h.played, Array(0..<30).filter { !(10...12).contains($0) })
    }

    func testBurstLossBeyondTheBufferedDelayIsAnUnderrunFirst() {
        var h = JitterHarness(Self.steady)
        h.send(jitterTestStream(count: 30).filter { !(10...12).contains($0.index) })
        h.run(until: .milliseconds(500))
        let start = h.afterStart
        // With ~50 ms buffered, nothing is known to follow when frame 10 is due.
        XCTAssertEqual(
            Array(start[start.startIndex + 10...start.startIndex + 13]),
            [
                .conceal(duration: 960), .conceal(duration: 960), .recover(13, duration: 960), .packet(13, duration: 960),
            ])
        XCTAssertEqual(h.buffer.stats.underrunFrames, 1)
        XCTAssertEqual(h.buffer.stats.concealedFrames, 1)
    }

    func testSequenceAndTimestampWrap() {
        var h = JitterHarness(Self.steady)
        // Sequence wraps 65535 → 0 after packet 5; the timestamp wraps after packet 8.
        let packets = jitterTestStream(count: 40, startSeq: 65530, startTs: UInt32.max - 960 * 8 + 1)
        XCTAssertEqual(packets[6].seq, 0)
        XCTAssertLessThan(packets[8].ts, packets[7].ts)
        h.send(packets.filter { $0.index != 5 })  // lose the packet at seq 65535
        h.run(until: .seconds(1))
        XCTAssertEqual(h.played, Array(0..<40).filter { $0 != 5 })
        XCTAssertEqual(h.recovered, [6], "seq 0 is the successor of seq 65535")
        XCTAssertEqual(h.buffer.stats.late + h.buffer.stats.outOfRange + h.buffer.stats.resyncs, 0)
    }

    func testPlayoutTimestampWrapsWithTheStream() {
        var h = JitterHarness(Self.steady)
        h.send(jitterTestStream(count: 20, startTs: UInt32.max - 960 * 3 + 1))
        var stamps: [UInt32] = []
        for _ in 0..<15 {
            h.tick()
            if let ts = h.buffer.playoutTimestamp { stamps.append(ts) }
            h.now += .milliseconds(20)
        }
        XCTAssertGreaterThan(stamps.count, 8)
        for (a, b) in zip(stamps, stamps.dropFirst()) { XCTAssertEqual(b &- a, 960) }
    }

    func testSsrcChangeResynchronizes() {
        var h = JitterHarness(Self.steady)
        h.send(jitterTestStream(count: 50))
        // New source from 1 s on: unrelated sequence numbers and timestamps.
        h.send(
            jitterTestStream(
                count: 50, firstIndex: 100, startSeq: 7, startTs: 3_000_000_000,
                ssrc: 0xCAFE, start: .seconds(1)))
        h.run(until: .seconds(2.5))
        XCTAssertEqual(h.result(of: 100), [.resynchronized])
        let s = h.buffer.stats
        XCTAssertEqual(s.ssrcChanges, 1)
        XCTAssertEqual(s.resyncs, 1)
        let old = h.played.filter { $0 < 100 }
        let new = h.played.filter { $0 >= 100 }
        XCTAssertEqual(new, Array(100..<150))
        XCTAssertEqual(old, Array(0..<old.count), "the old source plays in order until the switch")
        XCTAssertEqual(old.count + s.discarded, 50, "what the old source still had buffered is flushed")
        XCTAssertEqual(h.played, old + new)
    }

    func testDtxGapPlaysSilenceNotConcealment() {
        // 200 ms buffered; the sender pauses 160 ms (sequence continues, timestamp jumps), so
        // the packet after the pause is here before playout reaches the gap.
        var h = JitterHarness(Self.holding(200))
        var packets = jitterTestStream(count: 10)
        packets += jitterTestStream(
            count: 10, firstIndex: 10, startSeq: 1010, startTs: 50_000 + 18 * 960,
            start: .milliseconds(360)
        ).map {
            var p = $0
            p.marker = $0.index == 10
            return p
        }
        h.send(packets)
        h.run(until: .seconds(1))
        let start = h.afterStart
        XCTAssertEqual(
            Array(start.prefix(19)),
            (0..<10).map { .packet($0, duration: 960) } + Array(repeating: .silence(duration: 960), count: 8)
                + [.packet(10, duration: 960)])
        XCTAssertEqual(h.played, Array(0..<20))
        XCTAssertEqual(h.buffer.stats.concealedFrames, 0)
        XCTAssertEqual(h.buffer.stats.insertedFrames + h.buffer.stats.removedFrames, 0)
    }

    func testRealTimeDtxGapIsNotCountedAsLossAndResumesInTime() {
        var h = JitterHarness(Self.steady)
        var packets = jitterTestStream(count: 10)
        packets += jitterTestStream(
            count: 10, firstIndex: 10, startSeq: 1010, startTs: 50_000 + 30 * 960,
            start: .milliseconds(600))
        h.send(packets)
        h.run(until: .seconds(1.2))
        XCTAssertEqual(h.played, Array(0..<20))
        let s = h.buffer.stats
        XCTAssertEqual(s.concealedFrames, 0, "an empty buffer is not a known loss")
        XCTAssertGreaterThan(s.underrunFrames, 0)
        XCTAssertEqual(s.late, 0)
    }

    func testLongerPacketsPlayWithTheirOwnDuration() {
        var h = JitterHarness(Self.holding(100))
        h.send(jitterTestStream(count: 30, duration: 2880).filter { $0.index != 7 })
        h.runPacedByOutput(until: .seconds(2))
        XCTAssertEqual(h.played, Array(0..<30).filter { $0 != 7 })
        XCTAssertEqual(h.recovered, [8])
        let start = h.afterStart
        XCTAssertTrue(start.prefix(31).allSatisfy { $0.duration == 2880 }, "\(Array(start.prefix(31)))")
        XCTAssertEqual(h.buffer.stats.late, 0)
    }

    func testMixedPacketDurations() {
        var h = JitterHarness(Self.steady)
        var packets: [JitterTestPacket] = []
        var ts: UInt32 = 0
        var sendNs: Int64 = 0
        for n in 0..<30 {
            let d = [960, 1920, 2880][n % 3]
            packets.append(
                JitterTestPacket(
                    index: n, seq: UInt16(n), ts: ts, duration: d,
                    arrival: MediaTime(nanoseconds: sendNs) + .milliseconds(30)))
            ts += UInt32(d)
            sendNs += Int64(d) * 1_000_000_000 / 48_000
        }
        h.send(packets)
        h.runPacedByOutput(until: .seconds(1.5))
        XCTAssertEqual(h.played, Array(0..<30))
        let durations = h.afterStart.prefix(30).map(\.duration)
        XCTAssertEqual(durations, (0..<30).map { [960, 1920, 2880][$0 % 3] })
    }

    func testCapacityOverflowDiscardsOldest() {
        var c = Self.steady
        c.capacity = 8
        var h = JitterHarness(c)
        // Twelve packets arrive at once before any playout request.
        h.send(
            jitterTestStream(count: 12).map {
                var p = $0; p.arrival = .zero; return p
            })
        h.deliverDue()
        XCTAssertTrue(h.insertResults.allSatisfy { $0.result == .accepted })
        XCTAssertEqual(h.buffer.stats.bufferedPackets, 8)
        XCTAssertEqual(h.buffer.stats.discarded, 4)
        h.now = .milliseconds(100)
        h.run(until: .milliseconds(400))
        XCTAssertEqual(h.played, Array(4..<12))
    }

    func testCapacityOverflowWhilePlayingSkipsAhead() {
        var c = Self.steady
        c.capacity = 8
        var h = JitterHarness(c)
        h.send(jitterTestStream(count: 10))
        h.run(until: .milliseconds(120))
        XCTAssertEqual(h.played, [0, 1])
        // The playout side stalls while twenty more packets arrive.
        h.send(
            jitterTestStream(
                count: 20, firstIndex: 10, startSeq: 1010, startTs: 50_000 + 10 * 960,
                start: .milliseconds(200)))
        h.now = .milliseconds(700)
        h.deliverDue()
        XCTAssertEqual(h.buffer.stats.bufferedPackets, 8)
        XCTAssertEqual(h.buffer.stats.discarded, 20, "packets 2...21 made way for 22...29")
        h.run(until: .seconds(1))
        XCTAssertEqual(h.played, [0, 1] + Array(22..<30))
        XCTAssertGreaterThan(h.buffer.stats.playoutDelay, .milliseconds(200), "the stall left its delay behind")
    }

    func testOversizePayloadIsRefused() {
        var c = Self.steady
        c.maxPayloadSize = 100
        var h = JitterHarness(c)
        var big = jitterTestStream(count: 2)
        big[0].size = 101
        big[1].size = 100
        h.send(big)
        h.deliverDue()
        h.now = .milliseconds(60)
        h.deliverDue()
        XCTAssertEqual(h.result(of: 0), [.tooLarge])
        XCTAssertEqual(h.result(of: 1), [.accepted])
        XCTAssertEqual(h.buffer.stats.tooLarge, 1)
        XCTAssertEqual(h.buffer.stats.bufferedPackets, 1)
    }

    func testOutputBufferTooSmallConcealsInsteadOfOverrunning() {
        var h = JitterHarness(Self.steady)
        h.send(jitterTestStream(count: 5))
        h.now = .milliseconds(80)
        h.deliverDue()
        var small = [UInt8](repeating: 0, count: 8)
        let r = small.withUnsafeMutableBytes { h.buffer.nextFrame(at: h.now, into: $0) }
        XCTAssertEqual(r, .conceal(duration: 960))
        XCTAssertEqual(h.buffer.stats.discarded, 1)
        XCTAssertEqual(h.tick(), .packet(1, duration: 960))
    }

    func testNonsenseDurationIsOutOfRange() {
        var h = JitterHarness()
        var p = jitterTestStream(count: 2)
        p[0].duration = 0
        p[1].duration = 48_001
        h.send(p)
        h.now = .seconds(1)
        h.deliverDue()
        XCTAssertEqual(h.insertResults.map(\.result), [.outOfRange, .outOfRange])
        XCTAssertEqual(h.buffer.stats.bufferedPackets, 0)
    }

    func testBigSequenceJumpResynchronizesOnlyWhenConfirmed() {
        var h = JitterHarness(Self.steady)
        h.send(jitterTestStream(count: 20))
        // A stray packet far ahead, then the stream goes on normally.
        var stray = jitterTestStream(
            count: 1, firstIndex: 500, startSeq: 1000 &+ 20_000, startTs: 50_000 + 20 * 960,
            start: .milliseconds(400))
        h.send(stray)
        h.send(
            jitterTestStream(
                count: 20, firstIndex: 20, startSeq: 1020, startTs: 50_000 + 20 * 960,
                start: .milliseconds(400)
            ).map {
                var p = $0; p.arrival += .milliseconds(1); return p
            })
        // Then the sender restarts its numbering for real: two consecutive packets confirm it.
        stray = jitterTestStream(
            count: 20, firstIndex: 600, startSeq: 40_000, startTs: 50_000 + 40 * 960,
            start: .milliseconds(1000))
        h.send(stray)
        h.run(until: .seconds(1.5))
        XCTAssertEqual(h.result(of: 500), [.outOfRange])
        XCTAssertEqual(h.result(of: 20), [.accepted])
        XCTAssertEqual(h.result(of: 600), [.outOfRange])
        XCTAssertEqual(h.result(of: 601), [.resynchronized])
        XCTAssertEqual(h.played, Array(0..<40) + Array(601..<620))
        XCTAssertEqual(h.buffer.stats.resyncs, 1)
        XCTAssertEqual(h.buffer.stats.ssrcChanges, 0)
        XCTAssertEqual(h.buffer.stats.outOfRange, 2)
    }

    func testTimestampJumpResynchronizes() {
        var h = JitterHarness(Self.steady)
        h.send(jitterTestStream(count: 20))
        // Sequence continues but the timestamp leaps ten seconds ahead.
        h.send(
            jitterTestStream(
                count: 20, firstIndex: 20, startSeq: 1020, startTs: 50_000 + 500 * 960,
                start: .milliseconds(600)))
        h.run(until: .seconds(1.2))
        XCTAssertEqual(h.result(of: 20), [.outOfRange])
        XCTAssertEqual(h.result(of: 21), [.resynchronized])
        XCTAssertEqual(h.played, Array(0..<20) + Array(21..<40))
        XCTAssertEqual(h.buffer.stats.resyncs, 1)
    }

    func testSenderTimelineFallingBehindResynchronizesAfterARunOfLatePackets() {
        var h = JitterHarness(Self.steady)
        h.send(jitterTestStream(count: 20))
        // The sender stops for 600 ms but its timestamps resume where they left off.
        h.send(
            jitterTestStream(
                count: 40, firstIndex: 20, startSeq: 1020, startTs: 50_000 + 20 * 960,
                start: .milliseconds(1000)))
        h.run(until: .seconds(2.5))
        XCTAssertEqual((20..<30).flatMap { h.result(of: $0) }, Array(repeating: .late, count: 10))
        XCTAssertEqual(h.result(of: 30), [.resynchronized])
        XCTAssertEqual(h.played, Array(0..<20) + Array(30..<60))
        XCTAssertEqual(h.buffer.stats.late, 10)
        XCTAssertEqual(h.buffer.stats.resyncs, 1)
    }

    func testResyncFlushesWhatIsStillBuffered() {
        var h = JitterHarness(Self.holding(100))
        h.send(jitterTestStream(count: 10))
        h.run(until: .milliseconds(200))
        let buffered = h.buffer.stats.bufferedPackets
        XCTAssertGreaterThan(buffered, 0)
        h.send(jitterTestStream(count: 5, firstIndex: 50, ssrc: 99, start: .milliseconds(200)))
        h.run(until: .milliseconds(600))
        XCTAssertEqual(h.buffer.stats.discarded, buffered)
        XCTAssertEqual(h.played, Array(0..<(10 - buffered)) + Array(50..<55))
    }

    func testResetForgetsEverything() {
        var h = JitterHarness(Self.steady)
        h.send(jitterTestStream(count: 20))
        h.run(until: .milliseconds(200))
        XCTAssertGreaterThan(h.buffer.stats.playedPackets, 0)
        h.buffer.reset()
        XCTAssertEqual(
            h.buffer.stats,
            {
                var s = JitterBufferStats()
                s.targetDelay = .milliseconds(40)
                return s
            }())
        XCTAssertNil(h.buffer.playoutTimestamp)
        XCTAssertEqual(h.tick(), .silence(duration: 960))
    }

    func testConfigurationValidation() {
        XCTAssertNoThrow(try JitterBufferConfiguration().validate())
        var c = JitterBufferConfiguration()
        c.capacity = 0
        XCTAssertThrowsError(try c.validate()) { XCTAssertEqual($0 as? JitterBufferConfigurationError, .capacity) }
        c = JitterBufferConfiguration()
        c.quantile = 1.5
        XCTAssertThrowsError(try c.validate()) { XCTAssertEqual($0 as? JitterBufferConfigurationError, .quantile) }
        c = JitterBufferConfiguration()
        c.minDelay = .milliseconds(500)
        XCTAssertThrowsError(try c.validate()) { XCTAssertEqual($0 as? JitterBufferConfigurationError, .delayBounds) }
        XCTAssertFalse(JitterBufferConfigurationError.delayBounds.description.isEmpty)
        // A bad configuration is clamped, never a crash.
        var bad = JitterBufferConfiguration()
        bad.capacity = -3
        bad.maxPayloadSize = 0
        bad.windowSize = 0
        let jb = JitterBuffer(configuration: bad)
        XCTAssertEqual(jb.configuration.capacity, 1)
        XCTAssertEqual(jb.configuration.maxPayloadSize, 1)
        XCTAssertNoThrow(try jb.configuration.validate())
    }
}
