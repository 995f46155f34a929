import VoiceSIPAgent
import Foundation
import VoiceTestKit
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport
import VoiceEmbedded

/// Two clients registered with Kamailio (registrar + record-routing proxy with digest auth):
/// destinations by user name and number, custom parameters through the proxy, a wrong password.
final class CallThroughKamailioTests: XCTestCase {
    private var clients: [TestVoiceClient] = []
    private var kamailio: KamailioPeer?

    override func tearDown() {
        for client in clients { client.client.shutdown() }
        clients = []
        kamailio?.stop()
    }

    private func startKamailio(
        users: [String: String]? = nil, configure: (inout KamailioConfiguration) -> Void = { _ in }
    ) throws -> KamailioPeer {
        try TestPrerequisites.kamailio()
        var configuration = KamailioConfiguration()
        if let users { configuration.users = users }
        configure(&configuration)
        let peer = try KamailioPeer(configuration: configuration)
        kamailio = peer
        return peer
    }

    private func client(
        _ user: String, password: String, kamailio: KamailioPeer, configure: (inout VoiceClientConfiguration) -> Void = { _ in }
    ) throws -> TestVoiceClient {
        let proxy = try SIPServerAddress("sip:127.0.0.1:\(kamailio.configuration.udpPort)")
        let client = try TestVoiceClient(user) { configuration in
            configuration.domain = kamailio.configuration.realm
            configuration.outboundProxy = proxy
            configuration.registers = true
            configuration.username = user
            configuration.password = password
            configure(&configuration)
        }
        clients.append(client)
        return client
    }

    func testCallByUserNameThroughTheProxyCarriesCustomParameters() throws {
        let kamailio = try startKamailio()
        let alice = try client("alice", password: "alicepass", kamailio: kamailio)
        let bob = try client("bob", password: "bobpass", kamailio: kamailio)
        let registration = Locked<VoiceError?>(VoiceError(.registrationError))
        let notifications = bob.listen(result: registration)
        XCTAssertNil(registration.withLock { $0 }, "bob registered; log:\n\(kamailio.process.logTail())")
        let calleeDelegate = RecordingCallDelegate()
        notifications.onInvite.withLock {
            $0 = { invite in
                _ = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = calleeDelegate.queue },
                                  delegate: calleeDelegate)
            }
        }
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: "bob", delegate: delegate, params: ["customer": "42", "note": "a b&c"])
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected], "log:\n\(kamailio.process.logTail())")
        XCTAssertEqual(calleeDelegate.wait(for: 1), [.connected])
        let invite = try XCTUnwrap(notifications.invites.withLock { $0.first })
        XCTAssertEqual(invite.customParameters, ["customer": "42", "note": "a b&c"])
        XCTAssertEqual(invite.from, "alice")
        XCTAssertEqual(invite.callSid, call.sid, "both ends derive the same SID through the proxy")
        call.disconnect()
        XCTAssertEqual(calleeDelegate.waitForEnd(), [.connected, .disconnected(nil)])
    }

    /// RFC 4028 through a proxy that times dialogs (Kamailio's sst and dialog modules, which end
    /// a dialog nobody refreshed with a BYE to both sides). Both clients ask for 10 s with a
    /// Min-SE of 5 (below the RFC's 90 so that the refresh comes within seconds); alice, the
    /// refresher, sends UPDATE at 5 s through the proxy, and past the first interval neither
    /// the proxy nor either side has ended the call.
    func testASessionRefreshThroughASessionTimingProxyKeepsTheCall() throws {
        let kamailio = try startKamailio { $0.sessionTimerMinimumSE = 5 }
        let timers: (inout VoiceClientConfiguration) -> Void = {
            $0.sessionExpires = 10
            $0.sessionMinimumSE = 5
        }
        let alice = try client("alice", password: "alicepass", kamailio: kamailio, configure: timers)
        let bob = try client("bob", password: "bobpass", kamailio: kamailio, configure: timers)
        let registration = Locked<VoiceError?>(VoiceError(.registrationError))
        let notifications = bob.listen(result: registration)
        XCTAssertNil(registration.withLock { $0 }, "bob registered; log:\n\(kamailio.process.logTail())")
        let calleeDelegate = RecordingCallDelegate()
        _ = notifications.acceptEach(with: calleeDelegate)
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: "bob", delegate: delegate)
        defer { call.disconnect() }
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected], "log:\n\(kamailio.process.logTail())")
        let connected = Date()
        XCTAssertTrue(
            PollingWait.until(timeout: 8) { kamailio.process.log.contains("SST refresh UPDATE") },
            "no refresh passed the proxy; log:\n\(kamailio.process.logTail())")
        // Past the 10 s the INVITE agreed: without the refresh the proxy would have ended the
        // dialog, and bob's session would have expired (at 7 s).
        Thread.sleep(until: connected.addingTimeInterval(13))
        XCTAssertEqual(call.state, .connected)
        XCTAssertEqual(delegate.callbacks, [.ringing, .connected])
        XCTAssertEqual(calleeDelegate.callbacks, [.connected], "log:\n\(kamailio.process.logTail())")
    }

    func testUnknownNumberIsNotFound() throws {
        let kamailio = try startKamailio()
        let alice = try client("alice", password: "alicepass", kamailio: kamailio)
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: "+14155550101", delegate: delegate)
        XCTAssertEqual(delegate.waitForEnd(), [.failed(.notFound)])
        XCTAssertEqual(call.state, .disconnected)
    }

    func testWrongPasswordFailsRegistrationWithAuthFailure() throws {
        let kamailio = try startKamailio()
        let mallory = try client("bob", password: "wrong", kamailio: kamailio)
        let registration = Locked<VoiceError?>(nil)
        _ = mallory.listen(result: registration)
        XCTAssertEqual(registration.withLock { $0 }?.code, .authFailure)
    }

    /// A conference call through the proxy, in two of the forms a server may want: a bridge
    /// number with the room in a header, and a prefixed room user. The endpoints registered for
    /// them check what arrived.
    func testConferenceCallsArriveInTheConfiguredForm() throws {
        let kamailio = try startKamailio(users: ["alice": "alicepass", "conference": "confpass", "conf-standup": "roompass"])
        for (form, endpoint, expectedParameters) in [
            (ConferenceAddressing.focus(user: "conference", header: "X-Conference-Id"), "conference", ["Conference-Id": "standup"]),
            (ConferenceAddressing.userPrefix("conf-"), "conf-standup", [:]),
        ] {
            let bridge = try client(endpoint, password: kamailio.configuration.users[endpoint] ?? "", kamailio: kamailio)
            let registration = Locked<VoiceError?>(VoiceError(.registrationError))
            let notifications = bridge.listen(result: registration)
            XCTAssertNil(registration.withLock { $0 }, "\(endpoint) registered")
            let bridgeDelegate = RecordingCallDelegate()
            _ = notifications.acceptEach(with: bridgeDelegate)
            let alice = try client("alice", password: "alicepass", kamailio: kamailio) { $0.conferenceAddressing = form }
            let delegate = RecordingCallDelegate()
            let call = alice.connect(to: "conference:standup", delegate: delegate)
            XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected], "\(form); log:\n\(kamailio.process.logTail())")
            let invite = try XCTUnwrap(notifications.invites.withLock { $0.first })
            XCTAssertEqual(invite.to, endpoint, "\(form)")
            XCTAssertEqual(invite.customParameters, expectedParameters, "\(form)")
            call.disconnect()
            XCTAssertEqual(bridgeDelegate.waitForEnd(), [.connected, .disconnected(nil)])
            alice.client.shutdown()
            bridge.client.shutdown()
        }
    }
}
