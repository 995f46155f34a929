import VoiceEmbedded
import Foundation
import MetricsTestKit
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// The client's swift-metrics move with real calls: setups, the active-call meter, packets,
/// jitter, MOS and jitter-buffer delay during a call, failures by code.
final class VoiceMetricsTests: VirtualTimeTestCase {

    func testTheCountersMoveDuringACallAndAFailureIsCountedByCode() throws {
        let aliceMetrics = TestMetrics()
        let bobMetrics = TestMetrics()
        let alice = try TestVoiceClient("alice", signal: ConnectedCallPair.tone(440), world: world) { $0.metricsFactory = aliceMetrics }
        let bob = try TestVoiceClient("bob", signal: ConnectedCallPair.tone(660), world: world) { $0.metricsFactory = bobMetrics }
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        let notifications = bob.listen()
        let bobDelegate = RecordingCallDelegate()
        notifications.onInvite.withLock {
            $0 = { invite in
                _ = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = bobDelegate.queue }, delegate: bobDelegate)
            }
        }
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: bob.address, delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected])
        XCTAssertEqual(bobDelegate.wait(for: 1), [.connected])

        XCTAssertEqual(aliceMetrics.counterTotal(label: "voice_call_setups_total", dimensions: [("direction", "outgoing")]), 1)
        XCTAssertEqual(bobMetrics.counterTotal(label: "voice_call_setups_total", dimensions: [("direction", "incoming")]), 1)
        XCTAssertEqual(try aliceMetrics.expectMeter("voice_calls_active").lastValue, 1)
        let setup = try aliceMetrics.expectTimer("voice_call_setup_seconds", [("direction", "outgoing")])
        XCTAssertEqual(setup.values.count, 1)
        XCTAssertGreaterThan(setup.values.first ?? 0, 0)

        // A few seconds of media: the once-a-second figures arrive.
        XCTAssertTrue(
            PollingWait.until(timeout: 6) { aliceMetrics.counterTotal(label: "voice_rtp_packets_received_total") > 100 },
            "packets received: \(aliceMetrics.counterTotal(label: "voice_rtp_packets_received_total"))")
        XCTAssertGreaterThan(aliceMetrics.counterTotal(label: "voice_rtp_packets_sent_total"), 100)
        XCTAssertGreaterThan(bobMetrics.counterTotal(label: "voice_rtp_packets_received_total"), 50)
        XCTAssertEqual(aliceMetrics.counterTotal(label: "voice_srtp_failures_total"), 0)
        let mos = try aliceMetrics.expectRecorder("voice_mos").values
        XCTAssertFalse(mos.isEmpty)
        XCTAssertGreaterThan(mos.last ?? 0, 3.5, "a clean loopback call: \(mos)")
        XCTAssertFalse(try aliceMetrics.expectRecorder("voice_jitter_ms").values.isEmpty)
        let delay = try aliceMetrics.expectRecorder("voice_jitter_buffer_delay_ms").values
        XCTAssertGreaterThan(delay.last ?? 0, 0, "\(delay)")

        call.disconnect()
        XCTAssertEqual(delegate.waitForEnd(), [.ringing, .connected, .disconnected(nil)])
        XCTAssertEqual(try aliceMetrics.expectMeter("voice_calls_active").lastValue, 0)
        XCTAssertTrue(PollingWait.until(timeout: 5) { (try? bobMetrics.expectMeter("voice_calls_active").lastValue) == 0 })
        XCTAssertTrue(aliceMetrics.counters(label: "voice_call_failures_total").isEmpty, "a normal hang-up is no failure")

        // Bob now refuses: alice counts a failure with its code.
        notifications.onInvite.withLock { $0 = { invite in invite.reject() } }
        let refused = RecordingCallDelegate()
        _ = alice.connect(to: bob.address, delegate: refused)
        XCTAssertEqual(refused.waitForEnd(), [.ringing, .failed(.busyEverywhere)])
        XCTAssertEqual(
            aliceMetrics.counterTotal(label: "voice_call_failures_total", dimensions: [("direction", "outgoing"), ("code", "31600")]), 1)
        XCTAssertEqual(aliceMetrics.counterTotal(label: "voice_call_setups_total", dimensions: [("direction", "outgoing")]), 1)
    }
}
