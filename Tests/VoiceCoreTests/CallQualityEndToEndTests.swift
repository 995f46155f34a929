import VoiceService
import VoiceEmbedded
import Foundation
import Synchronization
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
import VoiceTestKit
import VoiceMedia

/// Two real media streams through a network that drops packets on demand: the receiver's
/// statistics, sampled through ``CallQualitySampler`` into the detector, must raise the
/// packet-loss warning while packets are dropped and clear it once they are not. In virtual
/// time: both streams on an embedded engine, the loss in its in-memory network.
final class CallQualityEndToEndTests: XCTestCase {
    func testUserSpaceLossRaisesAndClearsThePacketLossWarning() throws {
        let network = InMemoryMediaNetwork()
        let engine = MediaEngine.embedded(network: network)
        let local = try SocketAddress(host: "127.0.0.1", port: 0)
        // G.711 sends every frame (Opus would stop sending silence through DTX).
        let configuration = AudioStreamConfiguration(localAddress: local, codec: .pcmu, encryption: .unencrypted)
        let sender = try AudioStream(configuration: configuration, engine: engine)
        let receiver = try AudioStream(configuration: configuration, engine: engine)
        let receiverRTP = receiver.localAddress
        // Drops every `dropEvery`-th datagram to the receiver while `dropEvery` > 0 (RTCP is
        // multiplexed, one report among some 250 RTP packets).
        let dropEvery = Atomic<Int>(0), dropped = Atomic<Int>(0), rtpToReceiver = Atomic<Int>(0)
        network.setConditions { _, destination, _ in
            guard destination == receiverRTP else { return .milliseconds(1) }
            let count = rtpToReceiver.add(1, ordering: .relaxed).newValue
            let every = dropEvery.load(ordering: .relaxed)
            if every > 0 && count % every == 0 {
                dropped.add(1, ordering: .relaxed)
                return nil
            }
            return .milliseconds(1)
        }
        defer {
            sender.stop()
            receiver.stop()
        }
        try sender.start(remote: receiver.localAddress, audioDevice: nil)
        try receiver.start(remote: sender.localAddress, audioDevice: nil)

        let recorder = RecordingInsightsPublisher()
        var sampler = CallQualitySampler()
        var detector = CallQualityWarningDetector()
        // Samples four times a second instead of once, to keep the test short; the detector
        // counts samples, not seconds.
        func sample(until condition: (Set<CallQualityWarning>) -> Bool, maxSamples: Int) -> Bool {
            for _ in 0..<maxSamples {
                engine.advance(by: .milliseconds(250))
                let stats = receiver.stats
                let s = sampler.sample(from: stats, isMuted: false)
                if let change = detector.add(s, at: Date(), callSid: "CAe2e") {
                    change.insightsEvents.forEach(recorder.publish)
                }
                if condition(detector.warnings) { return true }
            }
            return false
        }

        // A clean start: two seconds without the warning.
        XCTAssertFalse(sample(until: { $0.contains(.highPacketsLostFraction) }, maxSamples: 8))
        dropEvery.store(5, ordering: .relaxed)  // 20 % loss
        XCTAssertTrue(sample(until: { $0.contains(.highPacketsLostFraction) }, maxSamples: 40), "loss warning not raised")
        XCTAssertGreaterThan(dropped.load(ordering: .relaxed), 0)
        let report = CallStatsReport(streamStats: receiver.stats, callSid: "CAe2e")
        XCTAssertGreaterThan(report.remoteAudioTrack?.packetsLost ?? 0, 0)
        XCTAssertGreaterThan(report.localAudioTrack?.packetsSent ?? 0, 0)
        XCTAssertGreaterThan(report.remoteAudioTrack?.packetsReceived ?? 0, 0)

        dropEvery.store(0, ordering: .relaxed)
        XCTAssertTrue(sample(until: { !$0.contains(.highPacketsLostFraction) }, maxSamples: 40), "loss warning not cleared")
        // Other warnings may come and go too (MOS drops with the loss; silence is a constant level).
        let lossEvents = recorder.events.filter { $0.name == "high-packets-lost-fraction" }.map(\.group)
        XCTAssertEqual(lossEvents, [.networkQualityWarningRaised, .networkQualityWarningCleared])
        XCTAssertEqual(recorder.events.map(\.callSid), Array(repeating: "CAe2e", count: recorder.events.count))
    }
}
