import Foundation
import VoiceRTP
import XCTest

@testable import VoiceCore

/// The one-second stats samples Insights gets, ten to an event as Twilio's SDKs post them, and
/// the rest when the call ends.
final class InsightsMetricsBatchTests: XCTestCase {
    private func samples(of event: InsightsEvent) -> [[String: InsightsValue]] {
        guard case .array(let items) = event.payload["samples"] else { return [] }
        return items.compactMap { if case .object(let o) = $0 { o } else { nil } }
    }

    func testTenSamplesMakeAnEventAndTheRestGoWhenTheCallEnds() throws {
        var batch = InsightsMetricsBatch()
        var stats = AudioStreamStats()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        var events: [InsightsEvent] = []
        for second in 0..<14 {
            stats.packetsReceived += 45
            stats.packetsLost += 5
            stats.packetsSent += 50
            let quality = CallQualitySample(rttMs: second == 0 ? nil : 80, jitterMs: 4, packetsLostFraction: 0.1, mos: 4.1, inputLevel: 900)
            if let event = batch.add(stats, quality: quality, at: start + Double(second), callSid: "CA1") { events.append(event) }
        }
        XCTAssertEqual(events.count, 1, "one batch of ten")
        XCTAssertEqual(batch.pendingCount, 4)
        let rest = try XCTUnwrap(batch.flush(callSid: "CA1", at: start + 14))
        XCTAssertNil(batch.flush(callSid: "CA1", at: start + 15), "nothing twice")
        events.append(rest)
        XCTAssertEqual(events.map(\.qualifiedName), ["quality-metrics-samples:metrics-sample", "quality-metrics-samples:metrics-sample"])
        XCTAssertEqual(events.map(\.callSid), ["CA1", "CA1"])
        let all = events.flatMap(samples)
        XCTAssertEqual(all.count, 14)
        XCTAssertEqual(all.first?["timestamp"], .int(1_700_000_000_000))
        XCTAssertEqual(all.first?["rtt"], .null, "not measured yet")
        XCTAssertEqual(all.last?["rtt"], .double(80))
        XCTAssertEqual(all.map { $0["packets_received"] }, Array(repeating: .int(45), count: 14), "each second's own")
        XCTAssertEqual(all.map { $0["packets_lost"] }, Array(repeating: .int(5), count: 14))
        XCTAssertEqual(all.last?["total_packets_received"], .int(14 * 45))
        XCTAssertEqual(all.last?["total_packets_sent"], .int(14 * 50))
        XCTAssertEqual(all.last?["packets_lost_fraction"], .double(10), "percent, as Twilio's SDK gives it")
        XCTAssertEqual(all.last?["mos"], .double(4.1))
        XCTAssertEqual(all.last?["audio_level_in"], .int(900))
    }

    func testAStreamThatRestartsCountsFromItsNewCounters() {
        var batch = InsightsMetricsBatch()
        var stats = AudioStreamStats()
        stats.packetsReceived = 500
        _ = batch.add(stats, quality: CallQualitySample(), at: Date(), callSid: nil)
        stats.packetsReceived = 30  // a new stream after a re-INVITE
        _ = batch.add(stats, quality: CallQualitySample(), at: Date(), callSid: nil)
        let event = batch.flush(callSid: nil, at: Date())
        let received = event.map(samples)?.map { $0["packets_received"] }
        XCTAssertEqual(received, [.int(500), .int(30)])
    }

    /// In a call: a batch after ten seconds connected, the rest at hang-up.
    func testACallPostsItsSamplesToInsights() throws {
        let net = VirtualTimeCalls()
        let (_, _, call, aliceDelegate, _) = try net.connectedCall()
        let media = try XCTUnwrap(net.latestMedia(of: "alice"))
        media.receivedPerRead = 50
        net.advance(12_000, settling: aliceDelegate.queue)
        let recorder = try XCTUnwrap(net.insights["alice"])
        var batches = recorder.events.filter { $0.group == .qualityMetricsSamples }
        XCTAssertEqual(batches.count, 1)
        XCTAssertEqual(batches.first.map(samples)?.count, 10)
        XCTAssertEqual(batches.first?.callSid, call.sid)
        call.disconnect()
        net.advance(2_000, settling: aliceDelegate.queue)
        batches = recorder.events.filter { $0.group == .qualityMetricsSamples }
        XCTAssertEqual(batches.count, 2, "the rest when the call ends")
        let counted = batches.flatMap(samples)
        XCTAssertGreaterThanOrEqual(counted.count, 12)
        XCTAssertEqual(counted.last?["total_packets_received"], counted.last.map { _ in .int(Int(media.reported.packetsReceived)) })
    }
}
