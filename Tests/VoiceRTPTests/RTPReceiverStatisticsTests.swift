import XCTest
@testable import VoiceRTP
import VoiceMediaTypes
import VoiceSupport

final class RTPReceiverStatisticsTests: XCTestCase {
    /// 8 kHz audio, 20 ms packets: timestamp advances 160 per sequence number.
    private func timestamp(_ seq: UInt16, base: UInt16 = 100) -> UInt32 { UInt32(seq &- base) * 160 }

    func testScriptedLossReorderAndJitter() {
        var stats = RTPReceiverStatistics(clockRate: 8000)
        // (seq, arrival in RTP units). Nominal transit is 1000.
        // Hand computation (RFC 3550 A.8, integer form J' += |D| - ((J' + 8) >> 4), J = J' >> 4):
        //  100: probation, not counted
        //  101: source valid, base 101, transit 1000, J' 0
        //  102: transit 1032, |D| 32,  J' = 0 + 32 - 0     = 32  (J 2)
        //  104: transit 1000, |D| 32,  J' = 32 + 32 - 2    = 62  (J 3)   103 missing
        //  103: transit 1220, |D| 220, J' = 62 + 220 - 4   = 278 (J 17)  late
        //  106: transit 1000, |D| 220, J' = 278 + 220 - 17 = 481 (J 30)  105 lost
        //  107: transit 1000, |D| 0,   J' = 481 - 30       = 451 (J 28)
        let script: [(UInt16, UInt32, Bool, UInt32)] = [
            (100, 1000, false, 0),
            (101, 1160, true, 0),
            (102, 1352, true, 2),
            (104, 1640, true, 3),
            (103, 1700, true, 17),
            (106, 1960, true, 30),
            (107, 2120, true, 28),
        ]
        for (seq, arrival, counted, jitter) in script {
            XCTAssertEqual(stats.received(sequenceNumber: seq, timestamp: timestamp(seq), arrival: arrival), counted, "seq \(seq)")
            XCTAssertEqual(stats.jitter, jitter, "jitter after seq \(seq)")
        }
        XCTAssertTrue(stats.isValid)
        XCTAssertEqual(stats.extendedHighestSequenceNumber, 107)
        XCTAssertEqual(stats.expectedPackets, 7)  // 101...107
        XCTAssertEqual(stats.receivedPackets, 6)
        XCTAssertEqual(stats.cumulativeLost, 1)
        XCTAssertEqual(stats.jitterMilliseconds, 451.0 / 16 / 8, accuracy: 1e-9)

        let block = stats.makeReportBlock(ssrc: 0xABCD, lastSR: 0x1234_5678, delaySinceLastSR: 0x0001_8000)
        XCTAssertEqual(
            block,
            RTCPReportBlock(
                ssrc: 0xABCD, fractionLost: 36,  // floor(1 * 256 / 7)
                cumulativeLost: 1, extendedHighestSequenceNumber: 107, jitter: 28,
                lastSR: 0x1234_5678, delaySinceLastSR: 0x0001_8000))

        // Next interval: 108-110 arrive on time plus a duplicate of 109; nothing new lost.
        for seq: UInt16 in [108, 109, 109, 110] {
            stats.received(sequenceNumber: seq, timestamp: timestamp(seq), arrival: timestamp(seq) + 1000)
        }
        let second = stats.makeReportBlock(ssrc: 0xABCD)
        XCTAssertEqual(second.fractionLost, 0, "more received than expected in the interval reports 0")
        XCTAssertEqual(second.cumulativeLost, 0, "the duplicate offsets the earlier loss, as A.3 counts it")
        XCTAssertEqual(second.extendedHighestSequenceNumber, 110)
        XCTAssertEqual(second.lastSR, 0)
    }

    /// Replayed packets (an attacker resending captured ones, or a looping network) are counted
    /// as A.3 says, but their stale timestamps must not pass for path jitter.
    func testReplayedPacketsDoNotInflateJitter() {
        var stats = RTPReceiverStatistics(clockRate: 8000)
        for seq in UInt16(100)...200 {
            stats.received(sequenceNumber: seq, timestamp: timestamp(seq), arrival: 1000 + UInt32(seq - 100) * 160)
        }
        XCTAssertEqual(stats.jitter, 0)
        // One second later, the last 50 packets again (and the newest once more).
        for seq in UInt16(151)...200 {
            stats.received(sequenceNumber: seq, timestamp: timestamp(seq), arrival: 1000 + 8000 + UInt32(seq - 100) * 160)
        }
        stats.received(sequenceNumber: 200, timestamp: timestamp(200), arrival: 1000 + 9000 + 100 * 160)
        XCTAssertEqual(stats.jitter, 0, "duplicates carry no timing")
        XCTAssertEqual(stats.receivedPackets, 100 + 51, "still counted, as A.3 counts duplicates")
        // A reordered packet that really is new still counts for jitter.
        stats.received(sequenceNumber: 202, timestamp: timestamp(202), arrival: 1000 + 102 * 160)
        stats.received(sequenceNumber: 201, timestamp: timestamp(201), arrival: 1000 + 102 * 160 + 80)
        XCTAssertGreaterThan(stats.jitter, 0)
    }

    func testFractionLostPerInterval() {
        var stats = RTPReceiverStatistics(clockRate: 48000)
        for seq: UInt16 in [1, 2, 3, 4, 5] {
            stats.received(sequenceNumber: seq, timestamp: UInt32(seq) * 960, arrival: UInt32(seq) * 960)
        }
        XCTAssertEqual(stats.makeReportBlock(ssrc: 1).fractionLost, 0)
        // Interval 2: 6...13 expected (8), only 6, 7, 12, 13 arrive: 4 lost -> 4*256/8 = 128.
        for seq: UInt16 in [6, 7, 12, 13] {
            stats.received(sequenceNumber: seq, timestamp: UInt32(seq) * 960, arrival: UInt32(seq) * 960)
        }
        let block = stats.makeReportBlock(ssrc: 1)
        XCTAssertEqual(block.fractionLost, 128)
        XCTAssertEqual(block.cumulativeLost, 4)
        // Interval 3: nothing arrives at all -> expected 0 -> fraction 0.
        XCTAssertEqual(stats.makeReportBlock(ssrc: 1).fractionLost, 0)
        // Interval 4: 14...17 expected, only 17 arrives (3 of 4 lost) -> 192.
        stats.received(sequenceNumber: 17, timestamp: 17 * 960, arrival: 17 * 960)
        XCTAssertEqual(stats.makeReportBlock(ssrc: 1).fractionLost, 192)
    }

    func testSequenceWrapCountsCycles() {
        var stats = RTPReceiverStatistics(clockRate: 8000)
        for seq: UInt16 in [65534, 65535, 0, 1] {
            stats.received(sequenceNumber: seq, timestamp: 0, arrival: 0)
        }
        XCTAssertEqual(stats.extendedHighestSequenceNumber, 0x0001_0001)
        XCTAssertEqual(stats.expectedPackets, 3)  // base is 65535, the first packet after probation
        XCTAssertEqual(stats.receivedPackets, 3)
        XCTAssertEqual(stats.cumulativeLost, 0)
        // A packet reordered from before the wrap is counted but does not move the highest.
        XCTAssertTrue(stats.received(sequenceNumber: 65535, timestamp: 0, arrival: 0))
        XCTAssertEqual(stats.extendedHighestSequenceNumber, 0x0001_0001)
    }

    func testProbationRestartsOnGap() {
        var stats = RTPReceiverStatistics(clockRate: 8000)
        XCTAssertFalse(stats.received(sequenceNumber: 10, timestamp: 0, arrival: 0))
        XCTAssertFalse(stats.received(sequenceNumber: 12, timestamp: 0, arrival: 0))
        XCTAssertFalse(stats.isValid)
        XCTAssertEqual(stats.expectedPackets, 0)
        XCTAssertTrue(stats.received(sequenceNumber: 13, timestamp: 0, arrival: 0))
        XCTAssertTrue(stats.isValid)
        XCTAssertEqual(stats.expectedPackets, 1)
        XCTAssertEqual(stats.extendedHighestSequenceNumber, 13)
    }

    func testLargeJumpNeedsTwoSequentialPacketsToResync() {
        var stats = RTPReceiverStatistics(clockRate: 8000)
        for seq: UInt16 in 1...5 { stats.received(sequenceNumber: seq, timestamp: 0, arrival: 0) }
        XCTAssertFalse(stats.received(sequenceNumber: 20000, timestamp: 0, arrival: 0), "beyond MAX_DROPOUT")
        XCTAssertEqual(stats.extendedHighestSequenceNumber, 5)
        XCTAssertTrue(stats.received(sequenceNumber: 20001, timestamp: 0, arrival: 0), "sequential after the jump: restart")
        XCTAssertEqual(stats.extendedHighestSequenceNumber, 20001)
        XCTAssertEqual(stats.expectedPackets, 1)
        XCTAssertEqual(stats.receivedPackets, 1)
    }

    func testJumpWithinDropoutIsLoss() {
        var stats = RTPReceiverStatistics(clockRate: 8000)
        for seq: UInt16 in 1...3 { stats.received(sequenceNumber: seq, timestamp: 0, arrival: 0) }
        XCTAssertTrue(stats.received(sequenceNumber: 2999, timestamp: 0, arrival: 0))
        XCTAssertEqual(stats.cumulativeLost, 2995)  // 4...2998
        // Old packet within MAX_MISORDER counts as reordered.
        XCTAssertTrue(stats.received(sequenceNumber: 2950, timestamp: 0, arrival: 0))
        XCTAssertEqual(stats.cumulativeLost, 2994)
    }

    func testArrivalAsMediaTimeUsesClockRate() {
        var stats = RTPReceiverStatistics(clockRate: 8000)
        // 20 ms packets; the third arrives 4 ms (32 units) late.
        stats.received(sequenceNumber: 1, timestamp: 0, arrivalTime: .milliseconds(1000))
        stats.received(sequenceNumber: 2, timestamp: 160, arrivalTime: .milliseconds(1020))
        stats.received(sequenceNumber: 3, timestamp: 320, arrivalTime: .milliseconds(1044))
        XCTAssertEqual(stats.jitter, 2)  // 32 / 16
        XCTAssertEqual(stats.jitterMilliseconds, 0.25, accuracy: 1e-9)
    }

    func testJitterHandlesTimestampAndArrivalWrap() {
        var stats = RTPReceiverStatistics(clockRate: 8000)
        let start = UInt32.max - 200
        for i: UInt32 in 0..<6 {
            stats.received(sequenceNumber: UInt16(i), timestamp: start &+ i * 160, arrival: (start &+ 5000) &+ i * 160)
        }
        XCTAssertEqual(stats.jitter, 0, "constant transit across both wraps is zero jitter")
    }

    func testReportBlockSurvivesReceiverReportRoundTrip() throws {
        var stats = RTPReceiverStatistics(clockRate: 8000)
        for seq: UInt16 in [65000, 65001, 65003, 65004] {
            stats.received(sequenceNumber: seq, timestamp: UInt32(seq) * 160, arrival: UInt32(seq) * 160 + UInt32(seq % 3) * 40)
        }
        let block = stats.makeReportBlock(
            ssrc: 0x5566_7788, lastSR: 0xB705_2000,
            delaySinceLastSR: NTPTimestamp.compact(duration: .milliseconds(5250)))
        XCTAssertEqual(block.cumulativeLost, 1)
        XCTAssertEqual(block.fractionLost, 64)  // 1 of 4 expected (65001...65004)
        let compound = RTCPCompoundPacket(
            report: .receiverReport(RTCPReceiverReport(ssrc: 1, reportBlocks: [block])),
            sourceDescription: RTCPSourceDescription(ssrc: 1, cname: "rx@host"))
        let parsed = try RTCPCompoundPacket(parsing: try compound.serialized())
        guard case .receiverReport(let rr) = parsed.packets.first else { return XCTFail("expected RR first") }
        XCTAssertEqual(rr.reportBlocks, [block])
        XCTAssertEqual(
            RTCPRoundTrip.compute(
                arrivalCompactNTP: 0xB710_8000, lsr: rr.reportBlocks[0].lastSR,
                dlsr: rr.reportBlocks[0].delaySinceLastSR), .milliseconds(6125))
    }
}
