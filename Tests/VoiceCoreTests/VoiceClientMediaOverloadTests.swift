import Foundation
import VoiceSupport
import XCTest

@testable import VoiceCore
import VoiceSIPAgent

/// A client whose media engine is beyond `limits.maximumMediaLoad` refuses new calls with
/// 503: the caller fails with 31503 (a proxy would try another destination), the app never
/// hears of the call.
final class VoiceClientMediaOverloadTests: XCTestCase {
    private func call(toBobWith maximumMediaLoad: Double?) throws -> (RecordingCallDelegate, ScriptedNotificationDelegate) {
        let net = VirtualTimeCalls()
        let alice = try net.client("alice", host: "127.0.0.1")
        // A limit of 0: whatever the engine's load, even idle, it is at the limit.
        let bob = try net.client("bob", host: "127.0.0.2") { $0.limits.maximumMediaLoad = maximumMediaLoad }
        let notifications = ScriptedNotificationDelegate()
        bob.register(accessToken: CallTestTokens.token("bob"), notificationDelegate: notifications, delegateQueue: notifications.queue) { _ in }
        net.settle(notifications.queue)
        let delegate = RecordingCallDelegate()
        _ = net.place(from: alice, to: "sip:bob@127.0.0.2:5060", delegate: delegate)
        net.advance(100, settling: delegate.queue, notifications.queue)
        withExtendedLifetime(bob) {}
        return (delegate, notifications)
    }

    func testAnOverloadedCalleeRefusesWith503AndTheAppNeverHearsOfTheCall() throws {
        let (delegate, notifications) = try call(toBobWith: 0)
        XCTAssertEqual(delegate.callbacks, [.failed(.serviceUnavailable)])
        XCTAssertEqual(notifications.invites.withLock { $0.count }, 0)
    }

    func testWithTheCheckOffTheSameCallRings() throws {
        let (delegate, notifications) = try call(toBobWith: nil)
        XCTAssertEqual(delegate.callbacks, [.ringing])
        XCTAssertEqual(notifications.invites.withLock { $0.count }, 1)
    }
}
