import VoiceEmbedded
import Foundation
import NIOPosix
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent

/// Our user agents as WebSocket clients (RFC 7118) of Kamailio's `websocket` module, with the
/// configuration Kamailio documents for them (xhttp handshake, nathelper aliases): over ws and
/// wss to each other, and over wss to and from a baresip on UDP.
final class SIPInteropKamailioWebSocketTests: XCTestCase {
    private var agents: [SIPTestAgent] = []
    private var kamailio: KamailioPeer?

    override func tearDown() {
        for agent in agents { agent.shutdown() }
        agents = []
        kamailio?.stop()
        kamailio = nil
    }

    private func startKamailio() throws -> KamailioPeer {
        try requirePeer("kamailio")
        switch SIPPeerRequirement.check("kamailio-websocket-modules", isInstalled: { _ in KamailioPeer.hasWebSocketModules() }) {
        case .available: break
        case .skip(let message): throw XCTSkip(message)
        case .fail(let message):
            XCTFail(message)
            throw SIPPeerError(.notInstalled, message)
        }
        var configuration = KamailioConfiguration()
        let fixtures = SIPTransportFixtures.directory
        configuration.tls = KamailioTLS(
            port: try SIPPeerProcess.freePort(), certificate: fixtures + "/server.pem", privateKey: fixtures + "/server.key")
        configuration.secureWebSocketPort = try SIPPeerProcess.freePort()
        let peer = try KamailioPeer(templatePath: PeerTemplates.kamailioWebSocket, configuration: configuration)
        kamailio = peer
        return peer
    }

    /// An agent registered over a WebSocket to Kamailio (`sip:` with `transport=ws`, `sips:` for wss).
    private func webSocketAgent(_ user: String, password: String, secure: Bool, kamailio: KamailioPeer) throws -> SIPTestAgent {
        let realm = kamailio.configuration.realm
        let port = secure ? try XCTUnwrap(kamailio.configuration.secureWebSocketPort) : kamailio.configuration.webSocketPort
        var proxy = SIPURI(scheme: secure ? .sips : .sip, host: "127.0.0.1", port: port)
        proxy.parameters.set("transport", "ws")
        let agent = try SIPTestAgent(
            user: user, transport: secure ? .wss : .ws, credentials: [SIPAuthCredentials(username: user, password: password)],
            domain: realm, outboundProxy: proxy
        ) { configuration in
            configuration.registrar = SIPURI(host: realm)
            configuration.registrationExpires = 120
            configuration.transportConfiguration.tlsClient = try SIPTransportFixtures.clientTrustingTestCA()
        }
        agents.append(agent)
        agent.agent.register()
        XCTAssertNotNil(
            agent.waitForRegistration(timeout: 10) { if case .registered = $0 { true } else { false } },
            "\(user) registers over \(secure ? "wss" : "ws"); log:\n\(kamailio.process.logTail())")
        return agent
    }

    func testAgentsOverWSAndWSSCallEachOtherThroughKamailio() throws {
        let kamailio = try startKamailio()
        let alice = try webSocketAgent("alice", password: "alicepass", secure: false, kamailio: kamailio)
        let bob = try webSocketAgent("bob", password: "bobpass", secure: true, kamailio: kamailio)
        for (caller, callee) in [(alice, bob), (bob, alice)] {
            let callerName = caller === alice ? "alice" : "bob", calleeName = caller === alice ? "bob" : "alice"
            let outgoing = try caller.agent.call(SIPURI(user: calleeName, host: kamailio.configuration.realm)).wait()
            let (incoming, invite) = try XCTUnwrap(
                callee.waitForIncomingCall(), "\(callerName) → \(calleeName) over WebSockets; log:\n\(kamailio.process.logTail())")
            // RFC 7118 §5.2, §5.3: our Via and Contact carry a .invalid host, Contact ;ob.
            let via = try invite.headers.via().last
            XCTAssertEqual(via?.transport, caller === alice ? "WS" : "WSS")
            XCTAssertTrue(via?.host.hasSuffix(".invalid") == true, "\(String(describing: via))")
            guard case .addresses(let contacts)? = try invite.headers.contact(), let contact = contacts.first?.uri else {
                return XCTFail("no Contact")
            }
            XCTAssertTrue(contact.host.hasSuffix(".invalid"))
            XCTAssertTrue(contact.parameters.contains("ob"))
            XCTAssertEqual(contact.transport, "ws")
            callee.agent.ring(incoming)
            callee.agent.accept(incoming)
            XCTAssertNotNil(caller.waitForEstablished(outgoing), "established; log:\n\(kamailio.process.logTail())")
            XCTAssertNotNil(callee.waitForEstablished(incoming), "the ACK reached the callee over its WebSocket")
            // In-dialog requests both ways follow the aliases back to the connections.
            callee.agent.hold(incoming)
            XCTAssertNotNil(caller.waitForCallEvent(outgoing) { if case .mediaUpdated(let m) = $0 { return m } else { return nil } })
            caller.agent.hangUp(outgoing)
            XCTAssertEqual(callee.waitForTermination(incoming), .remoteHangUp, "BYE over the callee's WebSocket")
            XCTAssertEqual(caller.waitForTermination(outgoing), .localHangUp)
            caller.clearEvents()
            callee.clearEvents()
        }
    }

    func testClientRegistersAgainWhenTheProxyRestartsAndIsReachableThere() throws {
        let first = try startKamailio()
        let alice = try webSocketAgent("alice", password: "alicepass", secure: true, kamailio: first)
        alice.clearEvents()
        // The proxy restarts (its registrations, kept in memory, are gone) on the same ports.
        let configuration = first.configuration
        first.stop()
        let restart = Date()
        let second = try KamailioPeer(templatePath: PeerTemplates.kamailioWebSocket, configuration: configuration)
        kamailio = second
        let ready = Date()
        XCTAssertNotNil(
            alice.waitForRegistration(timeout: 15) { if case .registered = $0 { true } else { false } },
            "alice registers again over a new WebSocket; log:\n\(second.process.logTail())")
        // At once, not after the registration's 15–30 s retry: back-off starts at 0.5 s.
        XCTAssertLessThan(Date().timeIntervalSince(ready), 10, "proxy down \(ready.timeIntervalSince(restart)) s")
        // The new binding reaches her: bob calls.
        let bob = try webSocketAgent("bob", password: "bobpass", secure: false, kamailio: second)
        let outgoing = try bob.agent.call(SIPURI(user: "alice", host: configuration.realm)).wait()
        let (incoming, _) = try XCTUnwrap(alice.waitForIncomingCall(), "INVITE over alice's new WebSocket; log:\n\(second.process.logTail())")
        alice.agent.ring(incoming)
        alice.agent.accept(incoming)
        XCTAssertNotNil(bob.waitForEstablished(outgoing))
        bob.agent.hangUp(outgoing)
        XCTAssertEqual(alice.waitForTermination(incoming), .remoteHangUp)
    }

    func testKamailioAnswersBothKindsOfKeepAlive() throws {
        let kamailio = try startKamailio()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        for keepAlive in [SIPWebSocketKeepAlive.ping, .crlf] {
            let recorder = SIPTransportEventRecorder()
            var configuration = SIPTransportConfiguration()
            configuration.webSocketKeepAlive = keepAlive
            let layer = try SIPTransportLayer(group: group, configuration: configuration, onEvent: recorder.handler)
            defer { try? layer.shutdown().wait() }
            let proxy = try SIPTransportEndpoint(transport: .ws, ip: "127.0.0.1", port: kamailio.configuration.webSocketPort)
            try layer.send(Array("\r\n\r\n".utf8), to: proxy).wait()
            XCTAssertTrue(
                recorder.waitUntil { recorder.all.contains { if case .keepAliveAnswered(proxy) = $0 { true } else { false } } },
                "\(keepAlive) unanswered: \(recorder.all); log:\n\(kamailio.process.logTail())")
        }
    }

    func testAgentOverWSSAndBaresipOverUDPCallEachOther() throws {
        let kamailio = try startKamailio()
        try requirePeer("baresip")
        var configuration = BaresipConfiguration()
        configuration.user = "bob"
        configuration.registrar = "sip:127.0.0.1:\(kamailio.configuration.udpPort)"
        configuration.password = "bobpass"
        configuration.autoAnswer = true
        let baresip = try BaresipPeer(configuration: configuration)
        defer { baresip.stop() }
        XCTAssertTrue(PollingWait.until(timeout: 10) { baresip.log.contains("200 OK") }, "baresip registered; log:\n\(baresip.process.logTail())")
        let alice = try webSocketAgent("alice", password: "alicepass", secure: true, kamailio: kamailio)

        // We call baresip: wss → Kamailio → UDP.
        let outgoing = try alice.agent.call(SIPURI(user: "bob", host: kamailio.configuration.realm)).wait()
        let media = try XCTUnwrap(alice.waitForEstablished(outgoing), "baresip answered; log:\n\(kamailio.process.logTail())")
        XCTAssertNotNil(media.remoteKey, "SDES keys over wss to the proxy (secure signaling)")
        try baresip.control.waitForEvent(.callEstablished)
        alice.agent.hangUp(outgoing)
        XCTAssertEqual(alice.waitForTermination(outgoing), .localHangUp)
        try baresip.control.waitForEvent(.callClosed)

        // baresip calls us: UDP → Kamailio → our wss connection (the saved received address).
        alice.clearEvents()
        try baresip.control.dial("sip:alice@127.0.0.1:\(kamailio.configuration.udpPort)")
        let (incoming, _) = try XCTUnwrap(alice.waitForIncomingCall(timeout: 10), "INVITE over our WebSocket; log:\n\(kamailio.process.logTail())")
        alice.agent.ring(incoming)
        alice.agent.accept(incoming)
        XCTAssertNotNil(alice.waitForEstablished(incoming), "the ACK came over the WebSocket")
        try baresip.control.waitForEvent(.callEstablished)
        alice.agent.hangUp(incoming)
        XCTAssertEqual(alice.waitForTermination(incoming), .localHangUp)
        try baresip.control.waitForEvent(.callClosed)
    }
}
