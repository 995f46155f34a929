import Foundation
import VoiceMedia
import VoiceTestKit
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

/// Media that cannot start once the call is answered (a sound card that refuses the format, a
/// port that will not bind) ends the call on both sides: the failing side reports 53405 and hangs up.
final class CallMediaFailureTests: XCTestCase {
    /// A sound card that refuses the call's format: not an interruption that may pass (a busy
    /// card is one, and the call waits for it: `CallAudioInterruptionPulseTests`).
    final class RefusingAudioDevice: AudioDevice, @unchecked Sendable {
        // @unchecked: immutable apart from `isEnabled`, which nothing reads.
        var captureFormat: AudioFormat? { .voice }
        var renderFormat: AudioFormat? { .voice }
        var isEnabled = true
        func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
            throw AudioDeviceError(kind: .unsupportedFormat, message: "format refused")
        }
        func stopCapturing() {}
        func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
            throw AudioDeviceError(kind: .unsupportedFormat, message: "format refused")
        }
        func stopRendering() {}
    }

    func testACalleeWhoseMediaCannotStartFailsWith53405AndHangsUpTheCaller() throws {
        let alice = try TestVoiceClient("alice"), bob = try TestVoiceClient("bob")
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        let notifications = bob.listen()
        let calleeDelegate = RecordingCallDelegate()
        notifications.acceptEach(with: calleeDelegate) { $0.audioDevice = RefusingAudioDevice() }
        let delegate = RecordingCallDelegate()
        _ = alice.connect(to: bob.address, delegate: delegate)
        XCTAssertEqual(calleeDelegate.waitForEnd(), [.failed(.mediaConnectionError)])
        XCTAssertEqual(delegate.waitForEnd(), [.ringing, .connected, .disconnected(nil)], "bob's BYE ended alice's call")
        XCTAssertTrue(bob.insights.events(in: .pcConnectionState).contains { $0.name == "failed" })
    }
}
