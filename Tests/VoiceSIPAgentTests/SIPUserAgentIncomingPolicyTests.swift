import VoiceEmbedded
import Foundation
import NIOSSL
import VoiceMedia
import VoiceTestKit
import VoiceRTP
import VoiceSupport
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes

/// Who may call: only the proxy's address, or only callers who prove a password.
final class SIPUserAgentIncomingPolicyTests: XCTestCase {
    private func incomingCalls(_ agent: SIPTestAgent) -> Int {
        agent.events.filter { if case .incomingCall = $0 { return true } else { return false } }.count
    }

    /// `caller` calls `target`, which answers: the call is established, then hung up.
    private func assertCallConnects(from caller: SIPTestAgent, to target: SIPTestAgent, file: StaticString = #filePath, line: UInt = #line) throws {
        let call = try caller.agent.call(target.uri).wait()
        let (incoming, _) = try XCTUnwrap(target.waitForIncomingCall(), "no incoming call", file: file, line: line)
        target.agent.accept(incoming)
        XCTAssertNotNil(caller.waitForEstablished(call), "not established", file: file, line: line)
        caller.agent.hangUp(call)
        _ = caller.waitForTermination(call)
    }

    func testOnlyTrustedSourcesMayCall() throws {
        let target = try SIPTestAgent(user: "target") { $0.incomingCallPolicy = SIPIncomingCallPolicy(trustedSources: ["127.0.0.1"]) }
        let stranger = try SIPTestAgent(user: "mallory", host: "127.0.0.3")
        let proxy = try SIPTestAgent(user: "proxy")
        defer {
            target.shutdown()
            stranger.shutdown()
            proxy.shutdown()
        }
        let refused = try stranger.agent.call(target.uri).wait()
        XCTAssertEqual(stranger.waitForTermination(refused), .rejected(statusCode: 403))
        XCTAssertEqual(incomingCalls(target), 0)
        XCTAssertEqual(try target.agent.eventLoop.submit { target.agent.table.serverTransactionCount(from: "127.0.0.3") }.wait(), 0,
            "refused without keeping a transaction")
        try assertCallConnects(from: proxy, to: target)
    }

    func testOnlyAPeerWhoseCertificateNamesATrustedHostMayCall() throws {
        let ca = try NIOSSLCertificate.fromPEMFile(SIPTransportFixtures.directory + "/ca.pem")
        let target = try SIPTestAgent(user: "target", transport: .tls) {
            $0.incomingCallPolicy = SIPIncomingCallPolicy(trustedTLSNames: ["LOCALHOST"])
            $0.transportConfiguration.tlsServer?.certificateVerification = .optionalVerification
            $0.transportConfiguration.tlsServer?.trustRoots = .certificates(ca)
        }
        // The proxy presents a client certificate naming localhost; the stranger, on the same
        // address and over TLS too, presents none.
        let proxy = try SIPTestAgent(user: "proxy", transport: .tls) {
            $0.transportConfiguration.tlsClient.certificateChain = try NIOSSLCertificate.fromPEMFile(
                SIPTransportFixtures.directory + "/server.pem").map { .certificate($0) }
            $0.transportConfiguration.tlsClient.privateKey = .privateKey(
                try NIOSSLPrivateKey(file: SIPTransportFixtures.directory + "/server.key", format: .pem))
        }
        let stranger = try SIPTestAgent(user: "mallory", transport: .tls)
        defer {
            target.shutdown()
            stranger.shutdown()
            proxy.shutdown()
        }
        let refused = try stranger.agent.call(target.uri).wait()
        XCTAssertEqual(stranger.waitForTermination(refused), .rejected(statusCode: 403))
        XCTAssertEqual(incomingCalls(target), 0)
        try assertCallConnects(from: proxy, to: target)
    }

    /// The proxy carries everybody's calls: the per-source limits do not throttle it.
    func testATrustedSourceIsNotHeldToThePerSourceLimits() throws {
        let target = try SIPTestAgent(user: "target") {
            $0.incomingCallPolicy = SIPIncomingCallPolicy(trustedSources: ["127.0.0.1"])
            $0.limits.maximumRingingCallsPerSource = 2
        }
        let proxy = try SIPTestAgent(user: "proxy")
        defer {
            target.shutdown()
            proxy.shutdown()
        }
        let calls = try (0..<4).map { _ in try proxy.agent.call(target.uri).wait() }
        XCTAssertTrue(PollingWait.until(timeout: 5) { self.incomingCalls(target) == 4 }, "four ring at once: \(self.incomingCalls(target))")
        for call in calls { proxy.agent.hangUp(call) }
        for call in calls { _ = proxy.waitForTermination(call) }
    }

    func testCallersMustProveThePasswordWhenAsked() throws {
        let policy = SIPIncomingCallPolicy(requiredCredentials: [SIPAuthCredentials(username: "alice", password: "s3cret")], realm: "office")
        let target = try SIPTestAgent(user: "target") { $0.incomingCallPolicy = policy }
        let alice = try SIPTestAgent(user: "alice", credentials: [SIPAuthCredentials(username: "alice", password: "s3cret")])
        let guesser = try SIPTestAgent(user: "alice", credentials: [SIPAuthCredentials(username: "alice", password: "guess")])
        let anonymous = try SIPTestAgent(user: "anon")
        defer {
            [target, alice, guesser, anonymous].forEach { $0.shutdown() }
        }
        let wrong = try guesser.agent.call(target.uri).wait()
        XCTAssertNotNil(guesser.waitForTermination(wrong), "a wrong password gets nowhere")
        let none = try anonymous.agent.call(target.uri).wait()
        XCTAssertEqual(anonymous.waitForTermination(none), .failed(.challengeUnanswerable), "challenged, no credentials to answer with")
        XCTAssertEqual(incomingCalls(target), 0)

        let call = try alice.agent.call(target.uri).wait()
        let (incoming, invite) = try XCTUnwrap(target.waitForIncomingCall(), "the right password gets through")
        XCTAssertNotNil(invite.headers.first("Authorization"))
        target.agent.accept(incoming)
        XCTAssertNotNil(alice.waitForEstablished(call))
        alice.agent.hangUp(call)
        _ = alice.waitForTermination(call)
    }

    func testKnownAndUnknownUsersGetTheSameAnswer() throws {
        let policy = SIPIncomingCallPolicy(requiredCredentials: [SIPAuthCredentials(username: "alice", password: "s3cret")])
        let target = try SIPTestAgent(user: "target") { $0.incomingCallPolicy = policy }
        defer { target.shutdown() }
        let prober = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        defer { prober.close() }
        let destination = try SocketAddress(host: "127.0.0.1", port: Int(target.endpoint.port))
        var answers: [String] = []
        for user in ["target", "alice", "nosuchuser"] {
            let text =
                "INVITE sip:\(user)@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:\(prober.localAddress.port);branch=z9hG4bK\(user)\r\n"
                + "Max-Forwards: 70\r\nTo: <sip:\(user)@127.0.0.1>\r\nFrom: <sip:svwar@127.0.0.1>;tag=1\r\nCall-ID: \(user)@probe\r\n"
                + "CSeq: 1 INVITE\r\nContact: <sip:svwar@127.0.0.1:\(prober.localAddress.port)>\r\n"
                + "Authorization: Digest username=\"\(user)\", realm=\"voice\", nonce=\"0.00\", uri=\"sip:\(user)@127.0.0.1\", response=\"00000000000000000000000000000000\"\r\n"
                + "Content-Length: 0\r\n\r\n"
            let reply = prober.exchange(text, with: destination, timeout: 2) ?? ""
            // Everything but what is unique per request (tags, nonce, the echoed headers).
            let shape = reply.split(separator: "\r\n").map { line -> String in
                for name in ["To:", "From:", "Call-ID:", "Via:", "WWW-Authenticate:"] where line.hasPrefix(name) { return name }
                return String(line)
            }
            answers.append(shape.joined(separator: "|"))
        }
        XCTAssertTrue(answers[0].hasPrefix("SIP/2.0 401"), answers[0])
        XCTAssertEqual(Set(answers).count, 1, "the same answer for every user: \(answers)")
    }
}
