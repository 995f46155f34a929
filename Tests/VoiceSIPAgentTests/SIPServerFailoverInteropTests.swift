import Foundation
import VoiceEmbedded
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent

/// RFC 3263 against real servers: dnsmasq publishes NAPTR, SRV and A records on loopback for
/// Kamailio instances; our agents know only the domain and the name server.
final class SIPServerFailoverInteropTests: XCTestCase {
    private var agents: [SIPTestAgent] = []
    private var proxies: [KamailioPeer] = []
    private var dns: DNSServerPeer?

    override func tearDown() {
        for agent in agents { agent.shutdown() }
        agents = []
        for proxy in proxies { proxy.stop() }
        proxies = []
        dns?.stop()
        dns = nil
    }

    private func startProxy(realm: String, users: [String: String], tls: Bool = false) throws -> KamailioPeer {
        try requirePeer("kamailio")
        var configuration = KamailioConfiguration()
        configuration.realm = realm
        configuration.users = users
        if tls {
            let fixtures = SIPTransportFixtures.directory
            configuration.tls = KamailioTLS(
                port: try SIPPeerProcess.freePort(), certificate: fixtures + "/named.pem", privateKey: fixtures + "/named.key")
        }
        let proxy = try KamailioPeer(configuration: configuration)
        proxies.append(proxy)
        return proxy
    }

    private func startDNS(domain: String, _ records: [DNSServerRecord]) throws -> DNSServerPeer {
        try requirePeer(DNSServerPeer.executable)
        let server = try DNSServerPeer(domain: domain, records: records)
        dns = server
        return server
    }

    /// `_sip._udp.example.test` at two proxies, `pbx1` and `pbx2` (both 127.0.0.1), with these
    /// priorities and weights.
    private func startDNS(
        for first: KamailioPeer, _ firstRank: (priority: Int, weight: Int), and second: KamailioPeer, _ secondRank: (priority: Int, weight: Int)
    ) throws -> DNSServerPeer {
        try startDNS(
            domain: "example.test",
            [
                .service(
                    "_sip._udp.example.test", target: "pbx1.example.test", port: first.configuration.udpPort, priority: firstRank.priority,
                    weight: firstRank.weight),
                .service(
                    "_sip._udp.example.test", target: "pbx2.example.test", port: second.configuration.udpPort, priority: secondRank.priority,
                    weight: secondRank.weight),
                .host("pbx1.example.test", address: "127.0.0.1"), .host("pbx2.example.test", address: "127.0.0.1"),
            ])
    }

    /// An agent of `domain` that registers with the domain itself (no proxy, no port, no
    /// transport): where it goes is DNS's to say.
    private func agent(_ user: String, domain: String, dns: DNSServerPeer) throws -> SIPTestAgent {
        let agent = try SIPTestAgent(
            user: user, credentials: [SIPAuthCredentials(username: user, password: user + "pass")], domain: domain
        ) { configuration in
            configuration.registrar = SIPURI(host: domain)
            configuration.registrationExpires = 120
            configuration.dns = DNSResolver.Settings(nameServers: [dns.nameServer])
            configuration.transportConfiguration.tlsClient = try SIPTransportFixtures.clientTrustingTestCA()
            // The servers are on loopback, but the agent only knows them by name.
            configuration.allowsKeysOverUnencryptedSignaling = true
        }
        agents.append(agent)
        return agent
    }

    private func registered(_ event: SIPRegistrationEvent) -> Bool {
        if case .registered = event { return true } else { return false }
    }

    private func registrations(at proxy: KamailioPeer) -> Int {
        proxy.log.components(separatedBy: "REGISTERED ").count - 1
    }

    /// RFC 2782: two servers of one priority with equal weights each get a share of sixteen
    /// clients' registrations (all sixteen on one: one chance in 2^15).
    func testSRVWeightsSpreadRegistrations() throws {
        let users = Dictionary(uniqueKeysWithValues: (0..<16).map { ("u\($0)", "u\($0)pass") })
        let first = try startProxy(realm: "example.test", users: users)
        let second = try startProxy(realm: "example.test", users: users)
        let dns = try startDNS(for: first, (10, 50), and: second, (10, 50))
        let clients = try users.keys.sorted().map { try agent($0, domain: "example.test", dns: dns) }
        for client in clients { client.agent.register() }
        for client in clients {
            XCTAssertNotNil(client.waitForRegistration(timeout: 10, registered), "registered; DNS log:\n\(dns.log.suffix(2_000))")
        }
        XCTAssertEqual(registrations(at: first) + registrations(at: second), 16)
        XCTAssertGreaterThan(registrations(at: first), 0, "the first server got none")
        XCTAssertGreaterThan(registrations(at: second), 0, "the second server got none")
        XCTAssertTrue(dns.log.contains("query[SRV] _sip._udp.example.test"))
    }

    /// RFC 3263 §4.1: the domain's NAPTR records put TLS first (order 10) and UDP second; an
    /// agent whose own transport is UDP, told nothing but the domain, registers over TLS and
    /// checks the certificate against the domain (the fixture names only sip.voice.test).
    func testANAPTRThatSaysTLSPicksTLS() throws {
        let proxy = try startProxy(realm: "sip.voice.test", users: ["alice": "alicepass"], tls: true)
        let tlsPort = try XCTUnwrap(proxy.configuration.tls?.port)
        let dns = try startDNS(
            domain: "voice.test",
            [
                .namingPointer("sip.voice.test", order: 20, preference: 10, service: "SIP+D2U", replacement: "_sip._udp.sip.voice.test"),
                .namingPointer("sip.voice.test", order: 10, preference: 10, service: "SIPS+D2T", replacement: "_sips._tcp.sip.voice.test"),
                .service("_sip._udp.sip.voice.test", target: "pbx.voice.test", port: proxy.configuration.udpPort, priority: 10, weight: 10),
                .service("_sips._tcp.sip.voice.test", target: "pbx.voice.test", port: tlsPort, priority: 10, weight: 10),
                .host("pbx.voice.test", address: "127.0.0.1"),
            ])
        let alice = try agent("alice", domain: "sip.voice.test", dns: dns)
        alice.agent.register()
        XCTAssertNotNil(alice.waitForRegistration(timeout: 10, registered), "log:\n\(proxy.log.suffix(3_000))")
        XCTAssertTrue(proxy.log.contains("REGISTERED alice from 127.0.0.1"), proxy.log.suffix(2_000).description)
        XCTAssertTrue(proxy.log.contains("over tls"), "registered over TLS; log:\n\(proxy.log.suffix(2_000))")
        XCTAssertTrue(dns.log.contains("query[NAPTR] sip.voice.test"))
    }

    /// The primary (priority 10) is killed: a new client's registration, an established
    /// client's call and its next registration all reach the secondary (priority 20), and the
    /// call connects through it.
    func testThePrimaryKilledRegistrationAndCallsGoToTheSecondary() throws {
        let users = ["alice": "alicepass", "bob": "bobpass"]
        let primary = try startProxy(realm: "example.test", users: users)
        let secondary = try startProxy(realm: "example.test", users: users)
        let dns = try startDNS(for: primary, (10, 0), and: secondary, (20, 0))
        let alice = try agent("alice", domain: "example.test", dns: dns)
        alice.agent.register()
        XCTAssertNotNil(alice.waitForRegistration(timeout: 10, registered))
        XCTAssertEqual(registrations(at: primary), 1, "alice registered with the primary")
        primary.stop()
        let bob = try agent("bob", domain: "example.test", dns: dns)
        bob.agent.register()
        XCTAssertNotNil(bob.waitForRegistration(timeout: 10, registered), "bob fails over to the secondary")
        XCTAssertEqual(registrations(at: secondary), 1)

        let outgoing = try alice.agent.call(SIPURI(user: "bob", host: "example.test")).wait()
        let (incoming, _) = try XCTUnwrap(bob.waitForIncomingCall(), "the INVITE fails over; log:\n\(secondary.log.suffix(2_000))")
        bob.agent.accept(incoming)
        XCTAssertNotNil(alice.waitForEstablished(outgoing), "alice's ACK follows the server that answered")
        XCTAssertNotNil(bob.waitForEstablished(incoming))
        alice.agent.hangUp(outgoing)
        XCTAssertEqual(bob.waitForTermination(incoming), .remoteHangUp)

        // Alice's next registration goes straight to the server that answered her INVITE.
        alice.clearEvents()
        alice.agent.register()
        XCTAssertNotNil(alice.waitForRegistration(timeout: 10, registered))
        XCTAssertTrue(
            PollingWait.until(timeout: 5) { self.secondary(secondary, registered: "alice") }, "log:\n\(secondary.log.suffix(2_000))")
    }

    private func secondary(_ proxy: KamailioPeer, registered user: String) -> Bool {
        proxy.log.contains("REGISTERED \(user) from")
    }
}
