import VoiceEmbedded
import Dispatch
import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceRTP
import VoiceSupport
import XCTest

@testable import VoiceCore
@testable import VoiceSIP
import VoiceMediaTypes

/// The caller and callee sequences of Twilio's TVOCall reference, over real SIP and media in
/// virtual time (``VirtualCallWorld``).
final class CallScenarioTests: VirtualTimeTestCase {
    private var clients: [TestVoiceClient] = []

    override func tearDown() {
        for client in clients { client.client.shutdown() }
        clients = []
        super.tearDown()
    }

    private func client(_ name: String, signal: [Int16] = []) throws -> TestVoiceClient {
        let client = try TestVoiceClient(name, signal: signal, world: world)
        clients.append(client)
        return client
    }

    /// Whether any datagram went to `host`.
    private func sentAnything(to host: String) -> Bool {
        world.sipNetwork.sent.contains { $0.destination.address.ipAddress == host }
    }

    // MARK: Caller

    func testCallerDisconnectsBeforeRinging() throws {
        let alice = try client("alice")
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: "sip:nobody@127.0.0.250:5060", delegate: delegate)  // nobody there answers
        XCTAssertEqual(call.state, .connecting)
        call.disconnect()
        call.disconnect()  // idempotent
        XCTAssertEqual(delegate.waitForEnd(), [.disconnected(nil)])
        XCTAssertEqual(call.state, .disconnected)
        PollingWait.sleep(0.2)
        XCTAssertEqual(delegate.callbacks, [.disconnected(nil)], "nothing after the end")
        // Stats of an ended call: nil, still on the delegate queue.
        let key = DispatchSpecificKey<Int>()
        delegate.queue.setSpecific(key: key, value: 7)
        let seen = Locked<(onQueue: Bool, report: CallStatsReport?)?>(nil)
        call.getStats { report in seen.withLock { $0 = (DispatchQueue.getSpecific(key: key) == 7, report) } }
        XCTAssertTrue(PollingWait.until(timeout: 5) { seen.withLock { $0 } != nil })
        XCTAssertEqual(seen.withLock { $0?.onQueue }, true)
        XCTAssertNil(seen.withLock { $0?.report })
    }

    func testCallerDisconnectsWhileRinging() throws {
        let alice = try client("alice"), bob = try client("bob")
        let notifications = bob.listen()  // rings, never answers
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: bob.address, delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 1), [.ringing])
        XCTAssertEqual(delegate.statesAtCallbacks, [.ringing])
        XCTAssertTrue(call.sid.hasPrefix("CA") && call.sid.count == 34, call.sid)
        XCTAssertEqual(notifications.waitForInvite()?.callSid, call.sid, "both ends agree on the SID")
        call.disconnect()
        XCTAssertEqual(delegate.waitForEnd(), [.ringing, .disconnected(nil)])
        XCTAssertTrue(PollingWait.until(timeout: 5) { !notifications.cancelled.withLock { $0 }.isEmpty })
        let (cancelled, error) = try XCTUnwrap(notifications.cancelled.withLock { $0.first })
        XCTAssertEqual(cancelled.callSid, call.sid)
        XCTAssertEqual(error.code, .requestTerminated)
    }

    func testCallerFailsBeforeRingingOnABadTokenOrDestinationWithoutSendingAnything() throws {
        let alice = try client("alice")
        let target = "sip:bob@127.0.0.251:5060"
        let cases: [(token: String, to: String, code: VoiceError.Code)] = [
            ("not-a-jwt", target, .accessTokenInvalid),
            (CallTestTokens.token("alice", lifetime: 60, now: Date().addingTimeInterval(-3600)), target, .accessTokenExpired),
            (CallTestTokens.token("alice", now: Date().addingTimeInterval(3600)), target, .accessTokenNotYetValid),
            (CallTestTokens.token("alice"), "conference:" + String(repeating: "r", count: 65), .malformedRequest),
        ]
        for (token, to, code) in cases {
            let delegate = RecordingCallDelegate()
            let call = alice.connect(to: to, delegate: delegate, token: token)
            XCTAssertEqual(delegate.waitForEnd(), [.failed(code)], "\(to)")
            XCTAssertEqual(call.state, .disconnected)
        }
        XCTAssertFalse(sentAnything(to: "127.0.0.251"), "no packet was sent")
    }

    func testCallerFailsAfterRingingWhenTheInviteIsRejected() throws {
        let alice = try client("alice"), bob = try client("bob")
        let notifications = bob.listen()
        notifications.onInvite.withLock { $0 = { invite in invite.reject() } }
        let delegate = RecordingCallDelegate()
        _ = alice.connect(to: bob.address, delegate: delegate)
        XCTAssertEqual(delegate.waitForEnd(), [.ringing, .failed(.busyEverywhere)])
    }

    func testConnectedThenEndedByCallerAndByCallee() throws {
        for callerEnds in [true, false] {
            let alice = try client("alice"), bob = try client("bob")
            let notifications = bob.listen()
            let calleeDelegate = RecordingCallDelegate()
            let accepted = notifications.acceptEach(with: calleeDelegate)
            let delegate = RecordingCallDelegate()
            let call = alice.connect(to: bob.address, delegate: delegate, params: ["customer": "42 & co"])
            XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected])
            XCTAssertEqual(calleeDelegate.wait(for: 1), [.connected], "no ringing for an accepted invite")
            let media = try XCTUnwrap(try onCallLoop(call) { core in core.media?.stream?.localAddress })
            XCTAssertEqual(notifications.invites.withLock { $0.first?.customParameters }, ["customer": "42 & co"])
            if callerEnds { call.disconnect() } else { accepted.value?.disconnect() }
            XCTAssertEqual(delegate.waitForEnd(), [.ringing, .connected, .disconnected(nil)])
            XCTAssertEqual(calleeDelegate.waitForEnd(), [.connected, .disconnected(nil)])
            XCTAssertEqual(delegate.statesAtCallbacks, [.ringing, .connected, .disconnected])
            XCTAssertEqual(call.details.endCause, callerEnds ? .local : .remote)
            // The end frees the call's RTP port (it binds again) and its engine.
            XCTAssertTrue(PollingWait.until(timeout: 5) { call.core.withLock { $0 } == nil }, "the call's engine is released")
            XCTAssertNoThrow(try world.mediaNetwork.bind(media).close(), "RTP port \(media) is free")
            for c in clients { c.client.shutdown() }
            clients = []
        }
    }

    // MARK: Callee

    func testCalleeDisconnectsBeforeConnected() throws {
        let alice = try client("alice"), bob = try client("bob")
        let notifications = bob.listen()
        let calleeDelegate = RecordingCallDelegate()
        notifications.onInvite.withLock {
            $0 = { invite in
                let call = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = calleeDelegate.queue },
                                         delegate: calleeDelegate)
                call.disconnect()
            }
        }
        let delegate = RecordingCallDelegate()
        _ = alice.connect(to: bob.address, delegate: delegate)
        XCTAssertEqual(calleeDelegate.waitForEnd(), [.disconnected(nil)])
        let callerSaw = delegate.waitForEnd()
        XCTAssertEqual(callerSaw.last, .disconnected(nil), "the caller sees the BYE: \(callerSaw)")
    }

    func testCalleeFailsToConnectWithNoCommonCodec() throws {
        let alice = try client("alice"), bob = try client("bob")
        let notifications = bob.listen()
        let calleeDelegate = RecordingCallDelegate()
        notifications.onInvite.withLock {
            $0 = { invite in
                _ = invite.accept(options: AcceptOptions(callInvite: invite) { builder in
                    builder.delegateQueue = calleeDelegate.queue
                    builder.preferredAudioCodecs = [.pcma]
                }, delegate: calleeDelegate)
            }
        }
        let delegate = RecordingCallDelegate()
        _ = alice.client.connect(
            options: ConnectOptions(accessToken: CallTestTokens.token("alice")) { builder in
                builder.params = ["To": bob.address]
                builder.delegateQueue = delegate.queue
                builder.preferredAudioCodecs = [.pcmu]
            },
            delegate: delegate)
        XCTAssertEqual(calleeDelegate.waitForEnd(), [.failed(.mediaNoSupportedCodec)])
        XCTAssertEqual(delegate.waitForEnd().last, .failed(.mediaNoSupportedCodec))
    }
}

/// The scenarios that need real time: the kernel's ICMP answer from a closed port, and a
/// delegate that blocks its queue while the call moves on underneath (a wait there cannot
/// drive virtual time).
final class CallScenarioRealTimeTests: XCTestCase {
    private var clients: [TestVoiceClient] = []

    override func tearDown() {
        for client in clients { client.client.shutdown() }
        clients = []
    }

    private func client(_ name: String, signal: [Int16] = []) throws -> TestVoiceClient {
        let client = try TestVoiceClient(name, signal: signal)
        clients.append(client)
        return client
    }

    func testACallToAUDPPortNobodyListensOnFailsWithATransportErrorAtOnce() throws {
        let alice = try client("alice")
        let closed = try UDPSocket(bindTo: try SocketAddress(host: "127.0.0.1", port: 0))
        let port = closed.localAddress.port
        closed.close()  // the port answers ICMP "port unreachable" now
        let delegate = RecordingCallDelegate()
        let started = Date()
        _ = alice.connect(to: "sip:nobody@127.0.0.1:\(port)", delegate: delegate)
        XCTAssertEqual(delegate.waitForEnd(timeout: 5), [.failed(.transportError)])
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertLessThan(elapsed, 1, "failed after \(elapsed) s, not at once (Timer B is 32 s)")
    }

    func testADelegateThatIsSlowToReturnReadsTheStateItsCallbackAnnounces() throws {
        let alice = try client("alice"), bob = try client("bob")
        let notifications = bob.listen()
        let calleeDelegate = RecordingCallDelegate()
        _ = notifications.acceptEach(with: calleeDelegate)
        let delegate = RecordingCallDelegate()
        // The ringing callback holds the delegate queue until the call has connected underneath it.
        let connectedUnderneath = LockedBox(false)
        delegate.onRinging.withLock {
            $0 = { _ in connectedUnderneath.value = calleeDelegate.wait(for: 1) == [.connected] }
        }
        let call = alice.connect(to: bob.address, delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected])
        XCTAssertTrue(connectedUnderneath.value, "the callee connected while the caller's ringing callback ran")
        XCTAssertEqual(delegate.statesAtCallbacks, [.ringing, .connected])
        call.disconnect()
        XCTAssertEqual(delegate.waitForEnd(), [.ringing, .connected, .disconnected(nil)])
        XCTAssertEqual(delegate.statesAtCallbacks, [.ringing, .connected, .disconnected])
        XCTAssertEqual(call.state, .disconnected)
    }
}

/// A value behind the package's lock, read and written whole (for tests' callbacks).
final class LockedBox<T: Sendable>: Sendable {
    private let locked: Locked<T>
    init(_ value: T) { locked = Locked(value) }
    var value: T {
        get { locked.withLock { $0 } }
        set { locked.withLock { $0 = newValue } }
    }
}

/// Destinations and custom headers end to end, and push payloads, in virtual time.
final class CallDestinationScenarioTests: VirtualTimeTestCase {
    private var clients: [TestVoiceClient] = []

    override func tearDown() {
        for client in clients { client.client.shutdown() }
        clients = []
        super.tearDown()
    }

    func testSIPAddressWithXHeadersArrivesAsCustomParameters() throws {
        let alice = try TestVoiceClient("alice", world: world), bob = try TestVoiceClient("bob", world: world)
        clients = [alice, bob]
        let notifications = bob.listen()
        let delegate = RecordingCallDelegate()
        let call = alice.client.connect(
            options: ConnectOptions(accessToken: CallTestTokens.token("alice")) { builder in
                builder.params = ["To": bob.address, "customer": "42"]
                builder.sipHeaders = ["X-Ticket": "T-9"]
                builder.delegateQueue = delegate.queue
            },
            delegate: delegate)
        let invite = try XCTUnwrap(notifications.waitForInvite())
        XCTAssertEqual(invite.customParameters, ["customer": "42", "Ticket": "T-9"])
        XCTAssertNil(invite.callerInfo.isVerified, "no verstat: unknown")
        invite.reject()
        XCTAssertEqual(delegate.waitForEnd().last, .failed(.busyEverywhere))
        XCTAssertEqual(call.state, .disconnected)
    }

    func testHeadersThatAreNotXHeadersOrTooLongAreRefusedBeforeSending() throws {
        let alice = try TestVoiceClient("alice", world: world)
        clients = [alice]
        for headers in [["Subject": "hi"], ["X-Big": String(repeating: "a", count: 1100)]] {
            let delegate = RecordingCallDelegate()
            _ = alice.client.connect(
                options: ConnectOptions(accessToken: CallTestTokens.token("alice")) { builder in
                    builder.params = ["To": "sip:bob@127.0.0.1:9"]
                    builder.sipHeaders = headers
                    builder.delegateQueue = delegate.queue
                },
                delegate: delegate)
            XCTAssertEqual(delegate.waitForEnd(), [.failed(.malformedRequest)], "\(headers.keys)")
        }
    }

    func testPushPayloadDeliversTheMatchingInviteAndIgnoresOthers() throws {
        let alice = try TestVoiceClient("alice", world: world), bob = try TestVoiceClient("bob", world: world)
        clients = [alice, bob]
        let notifications = bob.listen()
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: bob.address, delegate: delegate)
        let invite = try XCTUnwrap(notifications.waitForInvite())
        let pushed = ScriptedNotificationDelegate()
        let payload = [
            "twi_message_type": "twilio.voice.call", "twi_call_sid": call.sid, "twi_from": "client:alice",
            "twi_to": "client:bob", "twi_params": "customer=42&note=a%20b",
        ]
        XCTAssertTrue(bob.client.handleNotification(payload, delegate: pushed, delegateQueue: pushed.queue))
        XCTAssertEqual(pushed.waitForInvite()?.callSid, invite.callSid)
        XCTAssertFalse(bob.client.handleNotification(["aps": "x"], delegate: pushed, delegateQueue: pushed.queue))
        let cancel = ["twi_message_type": "twilio.voice.cancel", "twi_call_sid": call.sid, "twi_to": "client:bob"]
        XCTAssertTrue(bob.client.handleNotification(cancel, delegate: pushed, delegateQueue: pushed.queue))
        XCTAssertTrue(PollingWait.until(timeout: 5) { !pushed.cancelled.withLock { $0 }.isEmpty })
        call.disconnect()
    }
}
