import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Sinch's call-quality events through a whole call: the delegate and the event stream receive
/// them as the audio devices make them happen (digital silence, a constant tone), in each direction.
final class CallQualityEventCallTests: VirtualTimeTestCase {

    func testSilenceAndAConstantToneAreReportedForTheRightDirectionOnBothSides() throws {
        // Alice sends digital silence; bob sends a pure tone (a constant level). The constant
        // window is shortened to 4 s to keep the test short.
        let shortWindow: (inout VoiceClientConfiguration) -> Void = { $0.qualityEvents.constantLevelWindow = .seconds(4) }
        let alice = try TestVoiceClient("alice", signal: [Int16](repeating: 0, count: 48_000), world: world, configure: shortWindow)
        let bob = try TestVoiceClient("bob", signal: TestSignals.multiTone([(1_000, 8_000)], seconds: 1), world: world, configure: shortWindow)
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        let aliceEvents = CallQualityEventRecorder(), bobEvents = CallQualityEventRecorder()
        let notifications = bob.listen()
        let calleeDelegate = RecordingCallDelegate()
        calleeDelegate.onQualityEvent.withLock { $0 = { bobEvents.append($0) } }
        _ = notifications.acceptEach(with: calleeDelegate)
        let delegate = RecordingCallDelegate()
        delegate.onQualityEvent.withLock { $0 = { aliceEvents.append($0) } }
        let call = alice.connect(to: bob.address, delegate: delegate)
        let streamed = Locked<[CallQualityWarningEvent]>([])
        let reader = Task {
            for await event in call.events {
                if case .callQualityEvent(let e) = event { streamed.withLock { $0.append(e) } }
            }
        }
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected])

        XCTAssertTrue(PollingWait.until(timeout: 15) {
            let a = aliceEvents.all, b = bobEvents.all
            return a.contains(.zeroAudioLevel(.trigger, source: .outbound)) && a.contains(.constantAudioLevel(.trigger, source: .inbound))
                && b.contains(.zeroAudioLevel(.trigger, source: .inbound)) && b.contains(.constantAudioLevel(.trigger, source: .outbound))
        }, "alice: \(aliceEvents.all); bob: \(bobEvents.all)")
        XCTAssertFalse(aliceEvents.all.contains(.zeroAudioLevel(.trigger, source: .inbound)), "alice hears bob's tone: \(aliceEvents.all)")
        XCTAssertFalse(bobEvents.all.contains(.zeroAudioLevel(.trigger, source: .outbound)), "bob sends his tone: \(bobEvents.all)")
        XCTAssertFalse(aliceEvents.all.contains(.missingMediaStream(.trigger)), "media flows: \(aliceEvents.all)")

        // Alice mutes: her outbound direction is no longer measured, and its events recover.
        call.isMuted = true
        XCTAssertTrue(PollingWait.until(timeout: 5) { aliceEvents.all.contains(.zeroAudioLevel(.recover, source: .outbound)) }, "\(aliceEvents.all)")
        call.disconnect()
        XCTAssertEqual(delegate.waitForEnd().last, .disconnected(nil))
        _ = PollingWait.until(timeout: 5) { streamed.withLock { $0 } == aliceEvents.all }
        XCTAssertEqual(streamed.withLock { $0 }, aliceEvents.all, "the event stream carries the same events in the same order")
        reader.cancel()
    }
}
