import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes

/// Our user agents against Kamailio as registrar and record-routing proxy with digest auth.
final class SIPInteropKamailioTests: XCTestCase {
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
        let peer = try KamailioPeer()
        kamailio = peer
        return peer
    }

    private func agent(
        _ user: String, password: String, kamailio: KamailioPeer, transport: SIPTransportProtocol = .udp
    ) throws -> SIPTestAgent {
        let realm = kamailio.configuration.realm
        var proxy = SIPURI(host: "127.0.0.1", port: kamailio.configuration.udpPort)
        if transport == .tcp { proxy.parameters.set("transport", "tcp") }
        let agent = try SIPTestAgent(
            user: user, transport: transport, credentials: [SIPAuthCredentials(username: user, password: password)],
            domain: realm, outboundProxy: proxy
        ) { configuration in
            configuration.registrar = SIPURI(host: realm)
            configuration.registrationExpires = 120
        }
        agents.append(agent)
        return agent
    }

    private func registered(_ event: SIPRegistrationEvent) -> Bool {
        if case .registered = event { return true } else { return false }
    }

    private func callThroughProxy(transport: SIPTransportProtocol) throws {
        let kamailio = try startKamailio()
        let alice = try agent("alice", password: "alicepass", kamailio: kamailio, transport: transport)
        let bob = try agent("bob", password: "bobpass", kamailio: kamailio, transport: transport)
        alice.agent.register()
        bob.agent.register()
        XCTAssertNotNil(alice.waitForRegistration(timeout: 10, registered), "alice registers; log:\n\(kamailio.process.logTail())")
        XCTAssertNotNil(bob.waitForRegistration(timeout: 10, registered), "bob registers")

        // Alice calls bob's address of record; Kamailio challenges the INVITE, finds bob's Contact and relays.
        let outgoing = try alice.agent.call(SIPURI(user: "bob", host: kamailio.configuration.realm)).wait()
        let (incoming, invite) = try XCTUnwrap(bob.waitForIncomingCall(), "INVITE through the proxy; log:\n\(kamailio.process.logTail())")
        XCTAssertFalse(invite.headers["record-route"].isEmpty, "the proxy record-routes")
        XCTAssertEqual(try invite.headers.from().uri.user, "alice")
        bob.agent.ring(incoming)
        bob.agent.accept(incoming)
        let media = try XCTUnwrap(alice.waitForEstablished(outgoing), "alice established")
        XCTAssertNotNil(bob.waitForEstablished(incoming), "bob got the ACK through the proxy")
        XCTAssertNotNil(media.remoteKey, "SRTP keys end to end")
        // In-dialog requests follow the route set through Kamailio: a hold re-INVITE, then BYE.
        bob.agent.hold(incoming)
        XCTAssertNotNil(alice.waitForCallEvent(outgoing) { if case .mediaUpdated(let m) = $0 { return m } else { return nil } })
        bob.agent.hangUp(incoming)
        XCTAssertEqual(alice.waitForTermination(outgoing), .remoteHangUp)
        XCTAssertEqual(bob.waitForTermination(incoming), .localHangUp)
    }

    func testTwoAgentsRegisterAndCallEachOtherOverUDP() throws {
        try callThroughProxy(transport: .udp)
    }

    func testTwoAgentsRegisterAndCallEachOtherOverTCP() throws {
        try callThroughProxy(transport: .tcp)
    }

    func testWrongPasswordFailsAfterOneRetry() throws {
        let kamailio = try startKamailio()
        let mallory = try agent("alice", password: "wrong", kamailio: kamailio)
        mallory.agent.register()
        let failure = mallory.waitForRegistration(timeout: 10) { if case .failed = $0 { return true } else { return false } }
        guard case .failed(let reason, let retry)? = failure else { return XCTFail("no failure reported: \(mallory.events)") }
        XCTAssertEqual(reason, .authenticationFailed)
        XCTAssertNil(retry, "a rejected password is not retried in a loop")
        XCTAssertEqual(SIPErrorMapping.failureCode(for: reason).code, 20151)
        // Exactly two REGISTERs reached the registrar: the first and the one retry.
        let registers = kamailio.log.components(separatedBy: "REGISTER").count
        XCTAssertGreaterThan(registers, 0)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(mallory.events.count, 1, "nothing after the failure: \(mallory.events)")
    }

    func testUnregisteredUserIsNotFound() throws {
        let kamailio = try startKamailio()
        let alice = try agent("alice", password: "alicepass", kamailio: kamailio)
        let bob = try agent("bob", password: "bobpass", kamailio: kamailio)
        alice.agent.register()
        bob.agent.register()
        XCTAssertNotNil(alice.waitForRegistration(timeout: 10, registered))
        XCTAssertNotNil(bob.waitForRegistration(timeout: 10, registered))
        bob.agent.unregister()
        XCTAssertNotNil(bob.waitForRegistration(timeout: 10) { $0 == .unregistered }, "unregister acknowledged")
        let outgoing = try alice.agent.call(SIPURI(user: "bob", host: kamailio.configuration.realm)).wait()
        XCTAssertEqual(alice.waitForTermination(outgoing), .rejected(statusCode: 404))
        XCTAssertNil(bob.waitForIncomingCall(timeout: 0.5))
    }

    func testWeCallARegisteredBaresipThroughTheProxy() throws {
        let kamailio = try startKamailio()
        try requirePeer("baresip")
        var configuration = BaresipConfiguration()
        configuration.user = "bob"
        configuration.registrar = "sip:127.0.0.1:\(kamailio.configuration.udpPort)"
        configuration.password = "bobpass"
        let baresip = try BaresipPeer(configuration: configuration)
        defer { baresip.stop() }
        XCTAssertTrue(PollingWait.until(timeout: 10) { baresip.log.contains("200 OK") }, "baresip registered; log:\n\(baresip.process.logTail())")

        let alice = try agent("alice", password: "alicepass", kamailio: kamailio)
        alice.agent.register()
        XCTAssertNotNil(alice.waitForRegistration(timeout: 10, registered))
        let outgoing = try alice.agent.call(SIPURI(user: "bob", host: kamailio.configuration.realm)).wait()
        let media = try XCTUnwrap(alice.waitForEstablished(outgoing), "baresip answered through the proxy; log:\n\(baresip.process.logTail())")
        XCTAssertNotNil(media.remoteKey)
        try baresip.control.waitForEvent(.callEstablished)
        alice.agent.hangUp(outgoing)
        XCTAssertEqual(alice.waitForTermination(outgoing), .localHangUp)
        try baresip.control.waitForEvent(.callClosed)
    }
}
