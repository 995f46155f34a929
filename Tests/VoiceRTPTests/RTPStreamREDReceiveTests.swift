import VoiceMediaTypes
import VoiceSupport
import XCTest

@testable import VoiceRTP

/// A stream that negotiated RED (RFC 2198) takes the peer's RED packets apart: the primary
/// plays as the packet, and a redundant copy fills the slot of a packet that was lost.
final class RTPStreamREDReceiveTests: XCTestCase {
    static let redType: UInt8 = 63

    /// A sends `frames` ramp frames; each goes out wrapped in RED with the `depth` frames before
    /// it as redundancy. `lost(i)` drops packet i on the wire; `overtaken(i)` delivers packet i
    /// just after packet i + 1. Returns B's played samples.
    private func exchange(
        _ pair: inout RTPStreamPair, frames: Int, depth: Int, overtaken: (Int) -> Bool = { _ in false }, lost: (Int) -> Bool
    ) throws -> [Int16] {
        var history: [RTPPacket] = []
        var held: [UInt8]?
        for index in 0..<frames {
            for step in 0..<4 {
                pair.now = pair.now + .milliseconds(5)
                if step == 0 {
                    var frame = (0..<960).map { RTPStreamPair.ramp((pair.a.framesSent * 960 + $0) / 6) }
                    pair.a.framesSent += 1
                    frame.withUnsafeMutableBufferPointer { pair.a.stream.send(frame: $0, at: pair.now, output: &pair.a.output) }
                    let sent = pair.a.output.sent.filter { $0.component == .rtp }
                    pair.a.output.sent.removeAll()
                    for datagram in sent {
                        let packet = try RTPPacket(parsing: datagram.bytes)
                        let red = try Self.wrap(packet, history: history.suffix(depth))
                        history.append(packet)
                        if overtaken(index) {
                            held = try red.serialized()
                        } else if !lost(index) {
                            pair.inject(try red.serialized(), from: RTPStreamPair.addressA, toB: true)
                        }
                        if !overtaken(index), let late = held {
                            pair.inject(late, from: RTPStreamPair.addressA, toB: true)
                            held = nil
                        }
                    }
                    pair.b.stream.playout(at: pair.now, room: 48 * 120, output: &pair.b.output)
                }
                pair.b.stream.tick(at: pair.now, output: &pair.b.output)
                pair.b.output.sent.removeAll()
            }
        }
        return pair.b.output.played
    }

    /// `packet` as a RED packet carrying `history`'s payloads before its own.
    static func wrap(_ packet: RTPPacket, history: ArraySlice<RTPPacket>) throws -> RTPPacket {
        var out = [UInt8](repeating: 0, count: 1_500)
        let flat = history.flatMap(\.payload) + packet.payload
        let written = try flat.withUnsafeBytes { raw in
            var redundant: [REDPayloadView.Block] = []
            var at = 0
            for old in history {
                redundant.append(
                    REDPayloadView.Block(
                        payloadType: packet.header.payloadType, timestampOffset: packet.header.timestamp &- old.header.timestamp,
                        data: UnsafeRawBufferPointer(rebasing: raw[at..<(at + old.payload.count)])))
                at += old.payload.count
            }
            let primary = REDPayloadView.Block(payloadType: packet.header.payloadType, timestampOffset: 0, data: UnsafeRawBufferPointer(rebasing: raw[at...]))
            return try redundant.withUnsafeBufferPointer { list in
                try out.withUnsafeMutableBytes { try REDPayloadView.write(primary: primary, redundant: list, into: $0) }
            }
        }
        var red = packet
        red.header.payloadType = redType
        red.payload = Array(out[0..<written])
        return red
    }

    /// A pair whose B takes RED, past the start: the new source's first packets (probation,
    /// RFC 3550 A.1) and the jitter buffer's first fill are behind it.
    private func pair() throws -> (RTPStreamPair, AudioStreamStats) {
        var pair = RTPStreamPair(protectionKeys: nil) {
            // These tests wrap A's packets in RED themselves.
            $0.redPayloadType = Self.redType
            $0.redSending = .off
        }
        _ = try exchange(&pair, frames: 20, depth: 1) { _ in false }
        pair.b.output.played.removeAll()
        return (pair, pair.b.stream.statistics(at: pair.now))
    }

    func testASingleLossIsFilledFromTheNextPacketsRedundancy() throws {
        var (p, before) = try pair()
        let played = try exchange(&p, frames: 150, depth: 1) { $0 % 10 == 5 }  // 15 single losses
        let stats = p.b.stream.statistics(at: p.now)
        XCTAssertEqual(stats.jitterBuffer.recoveredByRedundancy - before.jitterBuffer.recoveredByRedundancy, 15)
        XCTAssertEqual(stats.jitterBuffer.concealedFrames, before.jitterBuffer.concealedFrames)
        XCTAssertEqual(stats.redPacketsReceived - before.redPacketsReceived, 135)
        XCTAssertEqual(stats.redBlocksRefused, 0)
        // Every frame plays whole and in order, the lost ones included.
        let frames = RTPStreamPair.intactFrames(in: played)
        XCTAssertGreaterThanOrEqual(frames.intact, 148)
        XCTAssertGreaterThanOrEqual(frames.continuing, frames.intact - 1)
        // The redundant copies of frames that did arrive (all but the first packet's) were not
        // counted as anything else.
        XCTAssertEqual(stats.jitterBuffer.redundantDuplicates - before.jitterBuffer.redundantDuplicates, 135 - 15 - 1)
        XCTAssertEqual(stats.jitterBuffer.duplicates, before.jitterBuffer.duplicates)
        XCTAssertEqual(stats.jitterBuffer.late, before.jitterBuffer.late)
    }

    /// Reordering is not loss: a copy that comes before its own packet fills the slot, the
    /// packet then takes it over, and nothing counts as recovered by RED.
    func testACopyThatOvertakesItsPacketIsNotARecovery() throws {
        var (p, before) = try pair()
        let played = try exchange(&p, frames: 150, depth: 1, overtaken: { $0 % 10 == 5 }) { _ in false }
        let stats = p.b.stream.statistics(at: p.now)
        XCTAssertEqual(stats.jitterBuffer.recoveredByRedundancy, before.jitterBuffer.recoveredByRedundancy, "no frame was missing")
        XCTAssertEqual(stats.jitterBuffer.duplicates, before.jitterBuffer.duplicates, "the packets were not duplicates either")
        XCTAssertEqual(stats.jitterBuffer.received - before.jitterBuffer.received, 150)
        XCTAssertEqual(stats.jitterBuffer.concealedFrames, before.jitterBuffer.concealedFrames)
        XCTAssertEqual(stats.jitterBuffer.late, before.jitterBuffer.late)
        // Every copy was spare: 149 of them (the run's first packet carries none).
        XCTAssertEqual(
            stats.jitterBuffer.redundantDuplicates + stats.jitterBuffer.redundantLate - before.jitterBuffer.redundantDuplicates
                - before.jitterBuffer.redundantLate, 149)
        // Reordering raises the delay, which is stretched in: frames are not all sample-exact.
        XCTAssertGreaterThan(played.count, 145 * 960)
    }

    func testABurstOfTwoNeedsADepthOfTwo() throws {
        var (one, start) = try pair()
        _ = try exchange(&one, frames: 150, depth: 1) { [40, 41, 90, 91].contains($0) }
        let shallow = one.b.stream.statistics(at: one.now).jitterBuffer
        XCTAssertEqual(shallow.recoveredByRedundancy - start.jitterBuffer.recoveredByRedundancy, 2, "depth 1 recovers the second of each pair")
        XCTAssertEqual(
            shallow.concealedFrames + shallow.recoveredFrames - start.jitterBuffer.concealedFrames - start.jitterBuffer.recoveredFrames, 2)

        var (two, before) = try pair()
        let played = try exchange(&two, frames: 150, depth: 2) { [40, 41, 90, 91].contains($0) }
        let deep = two.b.stream.statistics(at: two.now).jitterBuffer
        XCTAssertEqual(deep.recoveredByRedundancy - before.jitterBuffer.recoveredByRedundancy, 4)
        XCTAssertEqual(deep.concealedFrames, before.jitterBuffer.concealedFrames)
        // The delay grew by two frames for the copies (stretched in, so frames are not sample-exact).
        XCTAssertEqual(two.b.stream.jitterBuffer.redundancyFrames, 2)
        XCTAssertGreaterThan(played.count, 140 * 960)
    }

    func testARedundantCopyWhoseTurnHasGoneIsCountedNotPlayed() throws {
        var (p, before) = try pair()
        // Every packet arrives, so every redundant copy is of a frame already buffered or played.
        _ = try exchange(&p, frames: 50, depth: 2) { _ in false }
        let stats = p.b.stream.statistics(at: p.now).jitterBuffer
        XCTAssertEqual(stats.recoveredByRedundancy, before.jitterBuffer.recoveredByRedundancy)
        let unneeded = stats.redundantDuplicates + stats.redundantLate - before.jitterBuffer.redundantDuplicates - before.jitterBuffer.redundantLate
        XCTAssertEqual(unneeded, 2 * 50 - 3, "packet 0 carries none, packet 1 one, the rest two")
        XCTAssertEqual(stats.concealedFrames, before.jitterBuffer.concealedFrames)
    }

    /// The delay makes room for the copies: two frames back, two frames more; back to plain
    /// packets, after two seconds, none.
    func testTheDelayGrowsByTheRedundancysDepthAndShrinksWhenItStops() throws {
        var plain = RTPStreamPair(protectionKeys: nil) {
            // These tests wrap A's packets in RED themselves.
            $0.redPayloadType = Self.redType
            $0.redSending = .off
        }
        _ = try exchange(&plain, frames: 100, depth: 0) { _ in false }
        var deep = RTPStreamPair(protectionKeys: nil) {
            // These tests wrap A's packets in RED themselves.
            $0.redPayloadType = Self.redType
            $0.redSending = .off
        }
        _ = try exchange(&deep, frames: 100, depth: 2) { _ in false }
        let base = plain.b.stream.statistics(at: plain.now).jitterBuffer.targetDelay
        let raised = deep.b.stream.statistics(at: deep.now).jitterBuffer.targetDelay
        XCTAssertEqual(raised.nanoseconds - base.nanoseconds, 40_000_000, "\(base.milliseconds) → \(raised.milliseconds) ms")
        // Plain packets again: after two seconds the room is given back.
        for _ in 0..<150 {
            deep.run(.milliseconds(20))
        }
        XCTAssertEqual(deep.b.stream.jitterBuffer.redundancyFrames, 0)
    }

    func testMalformedREDIsDroppedAndBadBlocksAreLeftOut() throws {
        var (p, before) = try pair()
        var packet = RTPPacket(
            header: RTPHeader(payloadType: Self.redType, sequenceNumber: 0, timestamp: 0, ssrc: 0xA), payload: [0x80 | 0, 0x0F])
        // Truncated RED: counted as malformed, nothing buffered.
        packet.header.sequenceNumber = 100 + 20
        packet.header.timestamp = 1_000 + 20 * 160
        p.inject(try packet.serialized(), from: RTPStreamPair.addressA, toB: true)
        let after = p.b.stream.statistics(at: p.now)
        XCTAssertEqual(after.malformedPackets, before.malformedPackets + 1)
        XCTAssertEqual(after.redPacketsReceived, before.redPacketsReceived)
        // A block of another codec and one nested RED block: left out, counted; the primary plays.
        packet.payload = [0x80 | 8, 0x02, 0x80, 0x01, 0x80 | Self.redType, 0x01, 0x40, 0x01, 0] + [0x55, 0x66] + [UInt8](repeating: 0xFF, count: 160)
        p.inject(try packet.serialized(), from: RTPStreamPair.addressA, toB: true)
        let refused = p.b.stream.statistics(at: p.now)
        XCTAssertEqual(refused.redBlocksRefused, 2)
        XCTAssertEqual(refused.redPacketsReceived, before.redPacketsReceived + 1)
        XCTAssertEqual(refused.jitterBuffer.received, before.jitterBuffer.received + 1, "the primary was buffered")
    }
}

/// Our own RED: the policy, and packets a RED-taking peer plays through losses.
final class RTPStreamREDSendTests: XCTestCase {
    func testThePolicyTurnsOnWithLossDeepensAtHighLossAndStepsDownSlowly() {
        var policy = REDSendPolicy(mode: .adaptive)
        XCTAssertEqual(policy.depth, 1, "one copy until the first report")
        policy.reportReceived(fractionLost: 0.005)
        XCTAssertEqual(policy.depth, 0, "a clean first report: off at once")
        policy.reportReceived(fractionLost: 0.03)
        XCTAssertEqual(policy.depth, 1)
        policy.reportReceived(fractionLost: 0.10)
        XCTAssertEqual(policy.depth, 2)
        for _ in 0..<2 { policy.reportReceived(fractionLost: 0.02) }
        XCTAssertEqual(policy.depth, 2, "two quiet reports are not enough")
        policy.reportReceived(fractionLost: 0.02)
        XCTAssertEqual(policy.depth, 1, "the third steps down one level")
        policy.reportReceived(fractionLost: 0)
        policy.reportReceived(fractionLost: 0.03)
        policy.reportReceived(fractionLost: 0)
        XCTAssertEqual(policy.depth, 1, "a lossy report restarts the count")
        policy.reportReceived(fractionLost: 0.08)
        XCTAssertEqual(policy.depth, 2, "8 % is deep")
        for _ in 0..<3 { policy.reportReceived(fractionLost: 0.03) }
        XCTAssertEqual(policy.depth, 1)
        for _ in 0..<3 { policy.reportReceived(fractionLost: 0) }
        XCTAssertEqual(policy.depth, 0)
        var off = REDSendPolicy(mode: .off)
        off.reportReceived(fractionLost: 0.5)
        XCTAssertEqual(off.depth, 0)
        XCTAssertEqual(REDSendPolicy(mode: .always(depth: 5)).depth, 3)
    }

    /// Where the peer reports its loss runs (RFC 3611 VoIP Metrics with a gap threshold of 1)
    /// and most losses come in them, the copies reach one frame less than the mean run.
    func testThePeersLossRunsSetTheDepth() {
        func metrics(run: Double, isolatedShare: Double = 0, gmin: UInt8 = 1) -> RTCPVoIPMetrics {
            // Gaps of 1,000 ms of 20 ms packets between runs; `isolatedShare` of the losses lie in them.
            let burstLosses = run
            let gapLosses = isolatedShare / (1 - isolatedShare) * burstLosses
            return RTCPVoIPMetrics(
                ssrc: 0xA, burstDensity: 255, gapDensity: UInt8(min(255, gapLosses / 50 * 256)),
                burstDuration: UInt16(run * 20), gapDuration: 1_000, gmin: gmin)
        }
        var policy = REDSendPolicy(mode: .adaptive)
        policy.burstsReported(metrics(run: 4), packetMilliseconds: 20)
        XCTAssertEqual(policy.runDepth, 3)
        policy.reportReceived(fractionLost: 0.05)
        XCTAssertEqual(policy.depth, 3, "runs of four: three copies, FEC covers the fourth")
        for _ in 0..<5 { policy.reportReceived(fractionLost: 0.015) }
        XCTAssertEqual(policy.depth, 3, "above the floor the runs still call for three")
        for _ in 0..<3 { policy.reportReceived(fractionLost: 0) }
        XCTAssertEqual(policy.depth, 2, "a clean link steps down one level at a time")
        policy.reportReceived(fractionLost: 0.03)
        XCTAssertEqual(policy.depth, 3)

        var shortRuns = REDSendPolicy(mode: .adaptive)
        shortRuns.burstsReported(metrics(run: 3), packetMilliseconds: 20)
        shortRuns.reportReceived(fractionLost: 0.05)
        XCTAssertEqual(shortRuns.depth, 2)
        shortRuns.burstsReported(metrics(run: 2), packetMilliseconds: 20)
        shortRuns.reportReceived(fractionLost: 0.05)
        XCTAssertEqual(shortRuns.runDepth, 1, "pairs: one copy, FEC the other")
        XCTAssertEqual(shortRuns.depth, 2, "not deeper than before at once")
        for _ in 0..<3 { shortRuns.reportReceived(fractionLost: 0.10) }
        XCTAssertEqual(shortRuns.depth, 1, "pairs at 10 %: the runs decide, not the loss rule's two")

        var hostile = REDSendPolicy(mode: .adaptive)
        var huge = metrics(run: 4)
        huge.burstDuration = .max
        huge.gapDensity = .max
        huge.gapDuration = .max
        hostile.burstsReported(huge, packetMilliseconds: 20)
        hostile.reportReceived(fractionLost: 1)
        XCTAssertEqual(hostile.depth, 3, "the largest figures a block holds: at most three")
        hostile.burstsReported(huge, packetMilliseconds: 0)
        XCTAssertNil(hostile.runDepth, "no packet length: no run length")

        var scattered = REDSendPolicy(mode: .adaptive)
        scattered.burstsReported(metrics(run: 4, isolatedShare: 0.8), packetMilliseconds: 20)
        XCTAssertNil(scattered.runDepth, "most losses isolated: the loss rule")
        scattered.reportReceived(fractionLost: 0.05)
        XCTAssertEqual(scattered.depth, 1)

        var folded = REDSendPolicy(mode: .adaptive)
        folded.burstsReported(metrics(run: 6, gmin: 16), packetMilliseconds: 20)
        XCTAssertNil(folded.runDepth, "a threshold of 16 folds runs together: their length says nothing")
        folded.reportReceived(fractionLost: 0.05)
        XCTAssertEqual(folded.depth, 1)

        var fixed = REDSendPolicy(mode: .always(depth: 1))
        fixed.burstsReported(metrics(run: 4), packetMilliseconds: 20)
        fixed.reportReceived(fractionLost: 0.05)
        XCTAssertEqual(fixed.depth, 1)
    }

    /// Drops A's packets in runs of four, one run in every 80 packets (5 %) after the first 50.
    private static func runsOfFour() -> ([UInt8]) -> Bool {
        var index = 0
        return { bytes in
            guard let packet = try? RTPPacket(parsing: bytes), packet.header.ssrc == 0xA else { return false }
            index += 1
            return index > 50 && (index % 80) >= 76
        }
    }

    /// Two streams that both asked for VoIP Metrics: B reports A's loss runs, and A's copies
    /// reach back across them, so B plays every frame of runs of four.
    func testRunsOfLossReportedInVoIPMetricsDeepenTheCopies() throws {
        var pair = RTPStreamPair(protectionKeys: nil) { c in
            c.redPayloadType = RTPStreamREDReceiveTests.redType
            c.sendsVoIPMetrics = true
        }
        pair.dropsOnWire = Self.runsOfFour()
        pair.run(.seconds(20))
        let sent = pair.a.stream.statistics(at: pair.now)
        let report = try XCTUnwrap(sent.remoteVoIPMetrics, "B's XR reached A")
        XCTAssertEqual(report.gmin, 1)
        // A run still open when B reports counts as the burst it is so far (RFC 3611 §4.7.2), and
        // RTCP's randomized interval decides whether one is: about a dozen runs of 80 ms, one of
        // which may be 20–60 ms, average 75–80.
        XCTAssertEqual(Double(report.burstDuration), 80, accuracy: 5, "runs of four 20 ms packets")
        XCTAssertEqual(report.burstDensity, 255)
        XCTAssertEqual(report.gapDensity, 0)
        XCTAssertEqual(sent.redDepth, 3)
        let before = pair.b.stream.statistics(at: pair.now).jitterBuffer
        let lostBefore = pair.lostOnWire
        pair.run(.seconds(8))
        let after = pair.b.stream.statistics(at: pair.now).jitterBuffer
        XCTAssertGreaterThanOrEqual(pair.lostOnWire - lostBefore, 20)
        XCTAssertEqual(
            after.recoveredByRedundancy + after.recoveredFrames - before.recoveredByRedundancy - before.recoveredFrames,
            pair.lostOnWire - lostBefore, "each lost frame from a copy or from FEC")
        XCTAssertEqual(after.concealedFrames, before.concealedFrames, "none concealed")

        var plain = RTPStreamPair(protectionKeys: nil) { $0.redPayloadType = RTPStreamREDReceiveTests.redType }
        plain.dropsOnWire = Self.runsOfFour()
        plain.run(.seconds(20))
        let unreported = plain.a.stream.statistics(at: plain.now)
        XCTAssertNil(unreported.remoteVoIPMetrics, "not asked for: no XR")
        XCTAssertLessThan(unreported.redDepth, 3, "without the runs, the loss rule: one copy, two in a heavy interval")
    }

    /// A sends RED two frames deep; the wire loses pairs of packets; B plays every frame.
    func testOurREDCarriesABurstOfTwoToAPeerThatTakesIt() throws {
        var pair = RTPStreamPair(protectionKeys: nil) { c in
            c.redPayloadType = RTPStreamREDReceiveTests.redType
            c.redSending = .always(depth: 2)
        }
        pair.run(.milliseconds(400))
        let before = pair.b.stream.statistics(at: pair.now)
        var index = 0
        pair.dropsOnWire = { bytes in
            // A's RED packets only (B sends RED too).
            guard let packet = try? RTPPacket(parsing: bytes), packet.header.payloadType == RTPStreamREDReceiveTests.redType,
                packet.header.ssrc == 0xA
            else { return false }
            index += 1
            return index % 10 == 3 || index % 10 == 4
        }
        pair.b.output.played.removeAll()
        pair.run(.seconds(4))
        let stats = pair.b.stream.statistics(at: pair.now)
        let sent = pair.a.stream.statistics(at: pair.now)
        XCTAssertEqual(sent.redDepth, 2)
        XCTAssertGreaterThan(sent.redPacketsSent, 200)
        XCTAssertGreaterThanOrEqual(sent.redBlocksSent, 2 * sent.redPacketsSent - 1, "two blocks in every packet but the second")
        XCTAssertEqual(stats.jitterBuffer.recoveredByRedundancy - before.jitterBuffer.recoveredByRedundancy, pair.lostOnWire)
        XCTAssertEqual(stats.jitterBuffer.concealedFrames, before.jitterBuffer.concealedFrames, "nothing concealed")
        XCTAssertEqual(pair.lostOnWire, 40)
        XCTAssertEqual(stats.jitterBuffer.underrunFrames, before.jitterBuffer.underrunFrames, "no gap either")
        // RED copies are not FEC in W3C's counters (Chromium files them as primaries), and G.711
        // carries none of its own.
        XCTAssertEqual(stats.inbound.fecPacketsReceived, 0)
    }

    func testWithoutTheNegotiatedTypeOrWithTheModeOffPacketsArePlain() throws {
        var pair = RTPStreamPair(protectionKeys: nil) { $0.redPayloadType = RTPStreamREDReceiveTests.redType }
        pair.run(.seconds(1))
        let clean = pair.a.stream.statistics(at: pair.now)
        XCTAssertEqual(clean.redDepth, 0, "adaptive by default: off after the first clean report")
        let sent = clean.redPacketsSent
        pair.run(.seconds(2))
        XCTAssertEqual(pair.a.stream.statistics(at: pair.now).redPacketsSent, sent, "none on a clean link")
        var off = RTPStreamPair(protectionKeys: nil) { c in
            c.redPayloadType = RTPStreamREDReceiveTests.redType
            c.redSending = .off
        }
        off.dropsOnWire = { _ in Int.random(in: 0..<10) == 0 }
        off.run(.seconds(8))
        XCTAssertEqual(off.a.stream.statistics(at: off.now).redPacketsSent, 0, "off: none even through loss")
        var unnegotiated = RTPStreamPair(protectionKeys: nil) { $0.redSending = .always(depth: 1) }
        unnegotiated.run(.seconds(1))
        XCTAssertEqual(unnegotiated.a.stream.statistics(at: unnegotiated.now).redPacketsSent, 0)
    }

    /// With the default policy, loss reported by the peer turns RED on: at 5 % one frame deep,
    /// and the peer plays the lost frames from the copies; at 10 % two deep.
    func testTheDefaultPolicyFollowsThePeersLossReports() throws {
        var pair = RTPStreamPair(protectionKeys: nil) { $0.redPayloadType = RTPStreamREDReceiveTests.redType }
        pair.run(.seconds(3))
        XCTAssertEqual(pair.a.stream.statistics(at: pair.now).redDepth, 0)
        var index = 0
        pair.dropsOnWire = { bytes in
            guard let packet = try? RTPPacket(parsing: bytes), packet.header.ssrc == 0xA else { return false }
            index += 1
            return index % 20 == 7
        }
        pair.run(.seconds(15))
        let sent = pair.a.stream.statistics(at: pair.now)
        XCTAssertEqual(sent.redDepth, 1, "5 % loss: one frame deep")
        XCTAssertGreaterThan(sent.redPacketsSent, 300)
        let before = pair.b.stream.statistics(at: pair.now).jitterBuffer
        let lostBefore = pair.lostOnWire
        pair.run(.seconds(4))
        let after = pair.b.stream.statistics(at: pair.now).jitterBuffer
        XCTAssertGreaterThan(pair.lostOnWire - lostBefore, 8)
        XCTAssertEqual(after.recoveredByRedundancy - before.recoveredByRedundancy, pair.lostOnWire - lostBefore, "every lost frame came from a copy")
        XCTAssertEqual(after.concealedFrames, before.concealedFrames)
        pair.dropsOnWire = { bytes in
            guard let packet = try? RTPPacket(parsing: bytes), packet.header.ssrc == 0xA else { return false }
            index += 1
            return index % 10 == 7
        }
        pair.run(.seconds(10))
        XCTAssertEqual(pair.a.stream.statistics(at: pair.now).redDepth, 2, "10 %: two deep")
        pair.dropsOnWire = { _ in false }
        pair.run(.seconds(30))
        XCTAssertEqual(pair.a.stream.statistics(at: pair.now).redDepth, 0, "clean again: plain packets")
    }
}
