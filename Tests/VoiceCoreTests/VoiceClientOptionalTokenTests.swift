import VoiceEmbedded
import Foundation
import NIOCore
import VoiceSIP
import VoiceSIPAgent
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// A registrar on the in-memory network: it challenges a REGISTER without credentials with
/// `challenge` (or accepts it at once when there is none) and accepts one with credentials,
/// keeping every REGISTER it received. On the network's loop.
final class MemoryRegistrar: @unchecked Sendable {
    // @unchecked: touched on the network's loop only, which is the test's thread.
    private(set) var requests: [SIPRequest] = []
    private var transport: (any SIPTransport)?

    init(network: SIPMemoryNetwork, host: String, challenge: String?) throws {
        let transport = try network.transportFactory { [weak self] event in
            guard case .received(.request(let request), let source) = event, request.method == .register else { return }
            self?.answer(request, from: source, challenge: challenge)
        }
        self.transport = transport
        _ = transport.listen(.udp, host: host, port: 5060)
    }

    private func answer(_ request: SIPRequest, from source: SIPTransportEndpoint, challenge: String?) {
        requests.append(request)
        let authorized = challenge == nil || request.headers.first("Authorization") != nil
        var response = SIPResponse(replyingTo: request, statusCode: authorized ? 200 : 401, toTag: "reg1")
        if authorized, let contact = request.headers.first("Contact") {
            response.headers.add("Contact", contact + ";expires=600")
        } else if let challenge {
            response.headers.add("WWW-Authenticate", challenge)
        }
        response.headers.set("Content-Length", "0")
        _ = transport?.send(response.serialized(), to: source, serverName: nil)
    }
}

/// Tokens are optional: a client of a plain SIP server calls and registers without one (its
/// identity from the configuration, digest credentials answering challenges, no Bearer sent),
/// while a token that is given is still checked and refused before anything is sent. In
/// virtual time, on the in-memory network.
final class VoiceClientOptionalTokenTests: XCTestCase {
    private func result(_ box: Locked<VoiceError??>) -> VoiceError?? { box.withLock { $0 } }

    func testACallWithoutAnyTokenConnectsAndCarriesNoCredentials() throws {
        let net = VirtualTimeCalls()
        let alice = try net.client("alice", host: "127.0.0.1")
        let bob = try net.client("bob", host: "127.0.0.2")
        let notifications = ScriptedNotificationDelegate()
        let bobDelegate = RecordingCallDelegate()
        notifications.acceptEach(with: bobDelegate)
        let listening = Locked<VoiceError??>(nil)
        bob.register(notificationDelegate: notifications, delegateQueue: notifications.queue) { error in
            listening.withLock { $0 = .some(error) }
        }
        net.settle(notifications.queue)
        XCTAssertTrue(result(listening).map { $0 == nil } ?? false, "bob listens without a token: \(String(describing: result(listening)))")

        let aliceDelegate = RecordingCallDelegate()
        let call = alice.connect(
            options: ConnectOptions { builder in
                builder.params = ["To": "sip:bob@127.0.0.2:5060", "order": "7"]
                builder.delegateQueue = aliceDelegate.queue
            },
            delegate: aliceDelegate)
        net.settle(aliceDelegate.queue, notifications.queue, bobDelegate.queue)
        net.settle(aliceDelegate.queue, notifications.queue, bobDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected])
        XCTAssertEqual(bobDelegate.callbacks, [.connected])
        XCTAssertEqual(call.from, "alice", "the identity is the configuration's")
        let invite = try XCTUnwrap(notifications.invites.withLock { $0.first })
        XCTAssertEqual(invite.from, "alice")
        XCTAssertEqual(invite.customParameters, ["order": "7"])
        let requests = net.network.sent.compactMap { datagram -> SIPRequest? in
            if case .request(let request)? = datagram.message { request } else { nil }
        }
        XCTAssertFalse(requests.isEmpty)
        for request in requests {
            XCTAssertNil(request.headers.first("Authorization"), "\(request.method) carries no credential")
        }
        call.disconnect()
        net.settle(aliceDelegate.queue, bobDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks.last, .disconnected(nil))
    }

    func testARegistrationWithoutAnyTokenAnswersTheDigestChallengeAndSendsNoBearer() throws {
        let net = VirtualTimeCalls()
        let registrar = try MemoryRegistrar(
            network: net.network, host: "127.0.0.9", challenge: #"Digest realm="example.com", nonce="n1", algorithm=MD5"#)
        let address = try SIPServerAddress("127.0.0.9:5060")
        let bob = try net.client("bob", host: "127.0.0.2") {
            $0.registers = true
            $0.registrar = address
            $0.username = "bob"
            $0.password = "bobpass"
        }
        let notifications = ScriptedNotificationDelegate()
        let registered = Locked<VoiceError??>(nil)
        bob.register(notificationDelegate: notifications, delegateQueue: notifications.queue) { error in
            registered.withLock { $0 = .some(error) }
        }
        net.settle(notifications.queue)
        net.settle(notifications.queue)
        let outcome = try XCTUnwrap(result(registered), "the registration completed")
        XCTAssertNil(outcome, "registered without a token (not 20101): \(String(describing: outcome))")
        XCTAssertEqual(registrar.requests.count, 2, "challenged once, then accepted")
        XCTAssertNil(registrar.requests.first?.headers.first("Authorization"))
        let authorization = try XCTUnwrap(registrar.requests.last?.headers.first("Authorization"))
        XCTAssertTrue(authorization.hasPrefix("Digest "), authorization)
        XCTAssertTrue(authorization.contains(#"username="bob""#), authorization)
        XCTAssertFalse(registrar.requests.contains { $0.headers["Authorization"].contains { $0.hasPrefix("Bearer") } })
        XCTAssertEqual(try registrar.requests.last?.headers.to().uri.user, "bob", "the address of record is the configuration's identity")
    }

    func testARegistrationWithoutTokenOrCredentialsWorksWithAServerThatAsksForNone() throws {
        let net = VirtualTimeCalls()
        let registrar = try MemoryRegistrar(network: net.network, host: "127.0.0.9", challenge: nil)
        let address = try SIPServerAddress("sip:127.0.0.9:5060")
        let bob = try net.client("bob", host: "127.0.0.2") {
            $0.registers = true
            $0.registrar = address
        }
        let notifications = ScriptedNotificationDelegate()
        let registered = Locked<VoiceError??>(nil)
        bob.register(notificationDelegate: notifications, delegateQueue: notifications.queue) { error in
            registered.withLock { $0 = .some(error) }
        }
        net.settle(notifications.queue)
        let outcome = try XCTUnwrap(result(registered), "the registration completed")
        XCTAssertNil(outcome)
        XCTAssertEqual(registrar.requests.count, 1)
        XCTAssertNil(registrar.requests.first?.headers.first("Authorization"))
    }

    func testAMalformedTokenGivenIsStillRefusedBeforeAnythingIsSent() throws {
        let net = VirtualTimeCalls()
        _ = try MemoryRegistrar(network: net.network, host: "127.0.0.9", challenge: nil)
        let address = try SIPServerAddress("127.0.0.9")
        let bob = try net.client("bob", host: "127.0.0.2") {
            $0.registers = true
            $0.registrar = address
        }
        let notifications = ScriptedNotificationDelegate()
        let registered = Locked<VoiceError??>(nil)
        bob.register(accessToken: "not-a-jwt", notificationDelegate: notifications, delegateQueue: notifications.queue) { error in
            registered.withLock { $0 = .some(error) }
        }
        net.settle(notifications.queue)
        XCTAssertEqual(try XCTUnwrap(result(registered) ?? nil, "refused").code, .accessTokenInvalid)

        let alice = try net.client("alice", host: "127.0.0.1")
        for (token, expected) in [
            ("a.b", VoiceError.Code.accessTokenInvalid),
            ("", .accessTokenInvalid),
            (CallTestTokens.token("alice", lifetime: 60, now: Date().addingTimeInterval(-3600)), .accessTokenExpired),
        ] {
            let delegate = RecordingCallDelegate()
            _ = alice.connect(
                options: ConnectOptions(accessToken: token) { builder in
                    builder.params = ["To": "sip:bob@127.0.0.2:5060"]
                    builder.delegateQueue = delegate.queue
                },
                delegate: delegate)
            net.settle(delegate.queue)
            XCTAssertEqual(delegate.callbacks, [.failed(expected)], "token \(token.prefix(20))")
        }
        XCTAssertTrue(net.network.sent.isEmpty, "nothing was sent: \(net.network.sent.count) datagrams")
    }

    func testTheContactAddressIsTheOneTheClientAnnounces() throws {
        let net = VirtualTimeCalls()
        let alice = try net.client("alice", host: "127.0.0.1")
        let queue = DispatchQueue(label: "test.contact")
        let contact = Locked<String?>(nil)
        alice.getContactAddress(queue: queue) { text in contact.withLock { $0 = text } }
        net.settle(queue)
        XCTAssertEqual(contact.withLock { $0 }, "sip:alice@127.0.0.1:5060")
    }
}
