import Foundation
import VoiceSIP
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Every end cause a call can have, each reached through the public API in virtual time:
/// hung up locally and remotely, canceled, denied, no answer (the ring timeout, exactly at 60 s),
/// timeout (an INVITE nobody answers, a media reconnection that runs out) and failure.
final class CallEndCauseTests: XCTestCase {
    /// alice calls bob, who is invited but does not answer (yet).
    private func ringingCall(
        _ net: VirtualTimeCalls, configure: (inout VoiceClientConfiguration) -> Void = { _ in }
    ) throws -> (call: Call, delegate: RecordingCallDelegate, invite: CallInvite, notifications: ScriptedNotificationDelegate) {
        let alice = try net.client("alice", host: "127.0.0.1", configure: configure)
        let (_, notifications) = try net.listener("bob", host: "127.0.0.2")
        let delegate = RecordingCallDelegate()
        let call = net.place(from: alice, to: "sip:bob@127.0.0.2:5060", delegate: delegate)
        net.settle(notifications.queue, delegate.queue)
        let invite = try XCTUnwrap(notifications.invites.withLock { $0.first })
        XCTAssertEqual(delegate.callbacks, [.ringing])
        return (call, delegate, invite, notifications)
    }

    func testHungUpLocallyAndRemotely() throws {
        for callerEnds in [true, false] {
            let net = VirtualTimeCalls()
            let (_, _, call, aliceDelegate, bobDelegate) = try net.connectedCall()
            if callerEnds {
                call.disconnect()
            } else {
                try XCTUnwrap(bobDelegate.connectedCall.withLock { $0 }).disconnect()
            }
            net.advance(10, settling: aliceDelegate.queue, bobDelegate.queue)
            XCTAssertEqual(call.details.endCause, callerEnds ? .local : .remote)
            XCTAssertEqual(bobDelegate.connectedCall.withLock { $0 }?.details.endCause, callerEnds ? .remote : .local)
        }
    }

    func testTheCallerGivingUpWhileItRingsIsCanceled() throws {
        let net = VirtualTimeCalls()
        let (call, delegate, _, notifications) = try ringingCall(net)
        call.disconnect()
        net.advance(10, settling: delegate.queue, notifications.queue)
        XCTAssertEqual(delegate.callbacks, [.ringing, .disconnected(nil)])
        XCTAssertEqual(call.details.endCause, .canceled)
        XCTAssertEqual(notifications.cancelled.withLock { $0.count }, 1, "bob's invite was cancelled")
    }

    func testAnInviteAcceptedAfterTheCallersCancelIsCanceledForTheCallee() throws {
        let net = VirtualTimeCalls()
        let (call, delegate, invite, notifications) = try ringingCall(net)
        call.disconnect()
        net.advance(10, settling: delegate.queue, notifications.queue)
        XCTAssertEqual(notifications.cancelled.withLock { $0.count }, 1)
        // The app accepts the invite it had shown, a moment too late.
        let bobDelegate = RecordingCallDelegate()
        let bobCall = invite.accept(
            options: AcceptOptions(callInvite: invite) { $0.delegateQueue = bobDelegate.queue }, delegate: bobDelegate)
        net.advance(10, settling: bobDelegate.queue)
        XCTAssertEqual(bobDelegate.callbacks, [.failed(.callCancelled)])
        XCTAssertEqual(bobCall.state, .disconnected)
        XCTAssertEqual(bobCall.details.endCause, .canceled, "\(String(describing: bobCall.details.endCause))")
    }

    func testTheCalleeRejectingIsDenied() throws {
        let net = VirtualTimeCalls()
        let (call, delegate, invite, _) = try ringingCall(net)
        invite.reject()
        net.advance(10, settling: delegate.queue)
        XCTAssertEqual(call.state, .disconnected)
        XCTAssertEqual(call.details.endCause, .denied, "\(String(describing: call.details.endCause))")
    }

    func testNobodyAnsweringForSixtySecondsIsNoAnswerAndCancelsTheInvite() throws {
        let net = VirtualTimeCalls()
        let (call, delegate, _, notifications) = try ringingCall(net)
        net.advance(59_999, settling: delegate.queue, notifications.queue)
        XCTAssertEqual(call.state, .ringing)
        net.advance(1, settling: delegate.queue, notifications.queue)
        XCTAssertEqual(delegate.callbacks, [.ringing, .failed(.temporarilyUnavailable)])
        XCTAssertEqual(call.details.endCause, .noAnswer)
        XCTAssertEqual(net.sendTimes(of: .cancel).first, 60_000, "cancelled at the timeout")
        net.advance(100, settling: notifications.queue)
        XCTAssertEqual(notifications.cancelled.withLock { $0.count }, 1, "bob's invite was cancelled")
    }

    func testTheRingTimeoutIsConfigurableAndAnAnswerStopsIt() throws {
        let net = VirtualTimeCalls()
        let (call, delegate, invite, _) = try ringingCall(net) { $0.ringTimeout = .seconds(5) }
        net.advance(4_000, settling: delegate.queue)
        let bobDelegate = RecordingCallDelegate()
        _ = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = bobDelegate.queue }, delegate: bobDelegate)
        net.settle(delegate.queue, bobDelegate.queue)
        XCTAssertEqual(delegate.callbacks, [.ringing, .connected])
        net.advance(2_000, settling: delegate.queue)
        XCTAssertEqual(call.state, .connected, "an answered call has no ring timeout")
        XCTAssertTrue(net.sendTimes(of: .cancel).isEmpty)
    }

    func testAnInviteNobodyAnswersIsATimeout() throws {
        let net = VirtualTimeCalls()
        let alice = try net.client("alice", host: "127.0.0.1")
        let delegate = RecordingCallDelegate()
        let call = net.place(from: alice, to: "sip:nobody@127.0.0.9:5060", delegate: delegate)
        net.advance(32_000, settling: delegate.queue)
        XCTAssertEqual(delegate.callbacks, [.failed(.requestTimeout)])
        XCTAssertEqual(call.details.endCause, .timeout)
    }

    func testAMediaReconnectionThatRunsOutIsATimeout() throws {
        let net = VirtualTimeCalls()
        let (_, _, call, aliceDelegate, bobDelegate) = try net.connectedCall()
        net.advance(37_000, settling: aliceDelegate.queue, bobDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks.last, .disconnected(.mediaConnectionError))
        XCTAssertEqual(call.details.endCause, .timeout)
    }

    func testAnyOtherFailureIsAnError() throws {
        // No codec in common: alice offers only PCMU, bob takes only Opus. (SDES: a DTLS offer's
        // 488 would be retried once with SDES, and bob's app would see the call twice.)
        let net = VirtualTimeCalls()
        let alice = try net.client("alice", host: "127.0.0.1") { $0.mediaSecurity = .sdes }
        let (_, notifications) = try net.listener("bob", host: "127.0.0.2")
        let delegate = RecordingCallDelegate()
        let call = alice.connect(
            options: ConnectOptions(accessToken: CallTestTokens.token("alice")) { builder in
                builder.params = ["To": "sip:bob@127.0.0.2:5060"]
                builder.delegateQueue = delegate.queue
                builder.preferredAudioCodecs = [.pcmu]
            },
            delegate: delegate)
        net.settle(delegate.queue, notifications.queue)
        let invite = try XCTUnwrap(notifications.invites.withLock { $0.first })
        let bobDelegate = RecordingCallDelegate()
        _ = invite.accept(
            options: AcceptOptions(callInvite: invite) { builder in
                builder.delegateQueue = bobDelegate.queue
                builder.preferredAudioCodecs = [.opus()]
            }, delegate: bobDelegate)
        net.advance(100, settling: delegate.queue, bobDelegate.queue)
        guard case .error(let error) = call.details.endCause else {
            return XCTFail("\(String(describing: call.details.endCause)) after \(delegate.callbacks)")
        }
        XCTAssertEqual(delegate.callbacks.last, .failed(error.code))
    }
}
