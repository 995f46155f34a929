import VoiceBytes
import XCTest

@testable import VoiceRTP

/// RTCP XR (RFC 3611): the packet, its VoIP Metrics block, and the burst and gap accounting
/// behind that block.
final class RTCPExtendedReportTests: XCTestCase {
    private let receiverReport: [UInt8] = [
        0x80, 0xC9, 0x00, 0x01,  // RR, RC=0, length 1
        0x00, 0x00, 0x00, 0x0B,  // SSRC of sender
    ]

    // RFC 3611 §2 and §4.7, field by field.
    private let extendedReport: [UInt8] = [
        0x80, 0xCF, 0x00, 0x0A,  // V=2, reserved 0, PT=207, length 10 (11 words)
        0x00, 0x00, 0x00, 0x0B,  // SSRC of the reporter
        0x07, 0x00, 0x00, 0x08,  // BT=7, reserved, block length 8
        0x00, 0x00, 0x00, 0x0A,  // SSRC of source
        0x0D, 0x02, 0xFF, 0x03,  // loss rate 13/256, discard 2/256, burst density 255, gap density 3
        0x00, 0x50, 0x03, 0xE8,  // burst duration 80 ms, gap duration 1000 ms
        0x00, 0x28, 0x00, 0x64,  // round trip 40 ms, end system delay 100 ms
        0xEC, 0xC4, 0x1E, 0x01,  // signal -20 dBm0, noise -60 dBm0, RERL 30 dB; Gmin 1
        0x5A, 0x7F, 0x29, 0x28,  // R factor 90, external R unavailable, MOS-LQ 4.1, MOS-CQ 4.0
        0x30, 0x00, 0x00, 0x3C,  // RX config (adaptive buffer), reserved, JB nominal 60 ms
        0x00, 0x50, 0x01, 0x90,  // JB maximum 80 ms, JB absolute maximum 400 ms
    ]

    func testAVoIPMetricsBlockReadsFieldByFieldAndWritesBackTheSameBytes() throws {
        let compound = try RTCPCompoundPacket(parsing: receiverReport + extendedReport)
        XCTAssertEqual(compound.packets.count, 2)
        guard case .extendedReport(let xr) = compound.packets[1] else { return XCTFail("\(compound.packets[1])") }
        XCTAssertEqual(xr.ssrc, 0x0B)
        let metrics = try XCTUnwrap(xr.voipMetrics(about: 0x0A))
        XCTAssertNil(xr.voipMetrics(about: 0x0B))
        XCTAssertEqual(metrics.lossRate, 13)
        XCTAssertEqual(metrics.discardRate, 2)
        XCTAssertEqual(metrics.burstDensity, 255)
        XCTAssertEqual(metrics.gapDensity, 3)
        XCTAssertEqual(metrics.burstDuration, 80)
        XCTAssertEqual(metrics.gapDuration, 1_000)
        XCTAssertEqual(metrics.roundTripDelay, 40)
        XCTAssertEqual(metrics.endSystemDelay, 100)
        XCTAssertEqual(Int8(bitPattern: metrics.signalLevel), -20)
        XCTAssertEqual(Int8(bitPattern: metrics.noiseLevel), -60)
        XCTAssertEqual(metrics.residualEchoReturnLoss, 30)
        XCTAssertEqual(metrics.gmin, 1)
        XCTAssertEqual(metrics.rFactor, 90)
        XCTAssertEqual(metrics.externalRFactor, RTCPVoIPMetrics.unavailable)
        XCTAssertEqual(metrics.mosLQ, 41)
        XCTAssertEqual(metrics.mosCQ, 40)
        XCTAssertEqual(metrics.receiverConfiguration, 0x30)
        XCTAssertEqual(metrics.jitterBufferNominal, 60)
        XCTAssertEqual(metrics.jitterBufferMaximum, 80)
        XCTAssertEqual(metrics.jitterBufferAbsoluteMaximum, 400)
        XCTAssertEqual(try compound.serialized(), receiverReport + extendedReport)
        // Runs of four lost packets of 20 ms; nearly all losses are in them.
        XCTAssertEqual(try XCTUnwrap(metrics.meanLossRun(packetMilliseconds: 20)), 4, accuracy: 0.01)
        XCTAssertGreaterThan(try XCTUnwrap(metrics.burstLossShare), 0.8)
    }

    /// Unknown blocks are kept; a bad XR never costs the report beside it.
    func testOtherBlocksAreKeptAndABadXRLeavesTheReportStanding() throws {
        // A DLRR block (BT=5, one sub-block of three words) before the VoIP Metrics block.
        let dlrr: [UInt8] = [0x05, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x0A, 0x12, 0x34, 0x56, 0x78, 0x00, 0x01, 0x00, 0x00]
        var xr = Array(extendedReport[0..<8]) + dlrr + Array(extendedReport[8...])
        xr[3] = 0x0E  // 15 words
        let compound = try RTCPCompoundPacket(parsing: receiverReport + xr)
        guard case .extendedReport(let report) = compound.packets[1] else { return XCTFail() }
        XCTAssertEqual(report.blocks.count, 2)
        XCTAssertEqual(report.blocks[0], .other(blockType: 5, typeSpecific: 0, body: Array(dlrr[4...])))
        XCTAssertNotNil(report.voipMetrics(about: 0x0A))
        XCTAssertEqual(try compound.serialized(), receiverReport + xr)

        // A VoIP Metrics block of 7 words is not one: kept raw, not read.
        var shortBlock = Array(extendedReport[0..<40])
        shortBlock[3] = 0x09
        shortBlock[11] = 0x07
        let short = try RTCPCompoundPacket(parsing: receiverReport + shortBlock)
        guard case .extendedReport(let shortReport) = short.packets[1] else { return XCTFail("\(short.packets[1])") }
        XCTAssertNil(shortReport.voipMetrics(about: 0x0A))
        XCTAssertEqual(shortReport.blocks.count, 1)
        XCTAssertEqual(try short.serialized(), receiverReport + shortBlock)

        // A block that runs past its packet: the XR is kept raw, the report still counts.
        var overrun = extendedReport
        overrun[11] = 0x09
        let overrunCompound = try RTCPCompoundPacket(parsing: receiverReport + overrun)
        XCTAssertEqual(overrunCompound.packets.first, .receiverReport(RTCPReceiverReport(ssrc: 0x0B, reportBlocks: [])))
        XCTAssertEqual(overrunCompound.packets[1], .other(packetType: 207, count: 0, body: Array(overrun[4...])))
        // So does an XR too short for its reporter's SSRC... which RFC 3550's length cannot
        // express below one word; an empty XR body is the shortest.
        let empty = try RTCPCompoundPacket(parsing: receiverReport + [0x80, 0xCF, 0x00, 0x00])
        XCTAssertEqual(empty.packets[1], .other(packetType: 207, count: 0, body: []))

        // Written: every block a whole number of words, even where the total would be.
        let odd = RTCPPacket.extendedReport(
            RTCPExtendedReport(
                ssrc: 1, blocks: [.other(blockType: 9, typeSpecific: 0, body: [1]), .other(blockType: 9, typeSpecific: 0, body: [1, 2, 3])]))
        XCTAssertThrowsError(try RTCPCompoundPacket(packets: [odd]).serialized()) { XCTAssertEqual($0 as? RTCPError, .badLength) }
    }

    /// RFC 3611 §4.7.2 with a gap threshold of 1: bursts are runs of two or more losses; a
    /// single loss between received packets is in a gap.
    func testBurstsAndGapsWithAThresholdOfOne() {
        var counter = RTPBurstGapCounter(gmin: 1)
        for received in [true, false, false, true, false, true, true, false, false, false, true] {
            if received { counter.received() } else { counter.lost() }
        }
        let m = counter.metrics(packetMilliseconds: 20)
        XCTAssertEqual(m.burstDensity, 255, "every packet of a burst lost")
        XCTAssertEqual(m.gapDensity, UInt8(256 / 6), "one of the six gap packets lost")
        XCTAssertEqual(m.burstDuration, 50, "two bursts, five packets")
        XCTAssertEqual(m.gapDuration, 40, "six packets over three gaps")
    }

    /// With a threshold of 3, fewer than three received packets between losses keep a burst open.
    func testBurstsAndGapsWithALargerThreshold() {
        var counter = RTPBurstGapCounter(gmin: 3)
        // R L R L R R R R L R R R: one burst L R L (three packets, two lost), one isolated loss.
        for received in [true, false, true, false, true, true, true, true, false, true, true, true] {
            if received { counter.received() } else { counter.lost() }
        }
        let m = counter.metrics(packetMilliseconds: 20)
        XCTAssertEqual(m.burstDensity, UInt8(256 * 2 / 3))
        XCTAssertEqual(m.burstDuration, 60)
        XCTAssertEqual(m.gapDensity, UInt8(256 / 9))
        XCTAssertEqual(m.gapDuration, 9 * 20 / 2)
        // A run still open counts as the burst it is so far.
        var open = RTPBurstGapCounter(gmin: 16)
        open.received()
        open.lost(count: 3)
        XCTAssertEqual(open.metrics(packetMilliseconds: 20).burstDuration, 60)
        XCTAssertEqual(RTPBurstGapCounter(gmin: 0).gmin, 1, "at least 1")
    }

    /// The receiver statistics feed the counter as sequence numbers leave their window: a
    /// packet reordered within it counts as received, a skipped stretch as one run.
    func testTheReceiverCountsRunsOfLossAfterReordering() {
        var stats = RTPReceiverStatistics(clockRate: 48_000)
        var arrivals = Array(0..<300).filter { !(50...52).contains($0) && $0 != 100 && !(150...159).contains($0) }
        // 120 comes after 121.
        let at = arrivals.firstIndex(of: 120)!
        arrivals.swapAt(at, at + 1)
        for seq in arrivals {
            stats.received(sequenceNumber: UInt16(1_000 + seq), timestamp: UInt32(seq * 960), arrival: UInt32(seq * 960))
        }
        let m = stats.burstsAndGaps.metrics(packetMilliseconds: 20)
        // Numbers up to 300 - 16 have left the window: runs 50–52 and 150–159, and the single 100.
        XCTAssertEqual(m.burstDensity, 255)
        XCTAssertEqual(m.burstDuration, (3 + 10) * 20 / 2)
        XCTAssertEqual(stats.burstsAndGaps.gapLosses, 1, "the single loss is in a gap")
        XCTAssertEqual(stats.burstsAndGaps.bursts, 2)
        XCTAssertEqual(stats.burstsAndGaps.packets, 300 - 16 - 1, "all but the last 16 and the first (probation)")
    }
}

extension RTCPExtendedReportTests {
    /// A run longer than the horizon is fed whole; a packet 15 behind the newest still counts
    /// as received, one 16 behind as lost; numbers wrap past 65535.
    func testLongRunsTheHorizonAndTheWrap() {
        var stats = RTPReceiverStatistics(clockRate: 48_000)
        // From 65,500 across the wrap: 20 lost at 40–59; 100 arrives 15 behind, 130 arrives 16 behind.
        var order = Array(0..<200).filter { !(40..<60).contains($0) && $0 != 100 && $0 != 130 }
        order.insert(100, at: order.firstIndex(of: 115)! + 1)
        order.insert(130, at: order.firstIndex(of: 146)! + 1)
        for seq in order {
            stats.received(sequenceNumber: UInt16(truncatingIfNeeded: 65_500 + seq), timestamp: UInt32(seq * 960), arrival: UInt32(seq * 960))
        }
        let counter = stats.burstsAndGaps
        XCTAssertEqual(counter.bursts, 1, "the 20 lost in a row: one burst")
        XCTAssertEqual(counter.burstLosses, 20)
        XCTAssertEqual(counter.burstPackets, 20)
        XCTAssertEqual(counter.gapLosses, 1, "130, 16 behind when it came, counts as lost; 100, 15 behind, as received")
        XCTAssertEqual(counter.packets, 200 - 16 - 1)
        XCTAssertEqual(stats.cumulativeLost, 20, "RFC 3550's count takes both late ones")
    }
}

extension RTCPVoIPMetrics {
    init(ssrc: UInt32, burstDensity: UInt8, gapDensity: UInt8, burstDuration: UInt16, gapDuration: UInt16, gmin: UInt8 = 1) {
        self.init(ssrc: ssrc)
        self.burstDensity = burstDensity
        self.gapDensity = gapDensity
        self.burstDuration = burstDuration
        self.gapDuration = gapDuration
        self.gmin = gmin
    }
}
