import Foundation
import VoiceTestKit
import XCTest

@testable import VoiceCore
import VoiceSupport
import VoiceEmbedded

/// The client locating servers through the app's name server (dnsmasq on loopback): a callee
/// found by its domain's SRV record, a name with no records failing fast with 31530, and a
/// name server that is not an address refused when the client is made.
final class CallServerLocationTests: XCTestCase {
    private var clients: [TestVoiceClient] = []
    private var dns: DNSServerPeer?

    override func tearDown() {
        for client in clients { client.client.shutdown() }
        clients = []
        dns?.stop()
    }

    private func startDNS(_ records: [DNSServerRecord]) throws -> DNSServerPeer {
        try TestPrerequisites.installed(DNSServerPeer.executable)
        let server = try DNSServerPeer(domain: "example.test", records: records)
        dns = server
        return server
    }

    private func client(_ identity: String, configure: (inout VoiceClientConfiguration) -> Void = { _ in }) throws -> TestVoiceClient {
        let client = try TestVoiceClient(identity, configure: configure)
        clients.append(client)
        return client
    }

    func testACalleeIsFoundByItsDomainsSRVRecord() throws {
        let bob = try client("bob") { $0.incomingCallPolicy = .anyone }
        let dns = try startDNS([
            .service("_sip._udp.example.test", target: "pbx.example.test", port: bob.client.localEndpoint.port, priority: 10, weight: 0),
            .host("pbx.example.test", address: "127.0.0.1"),
        ])
        let alice = try client("alice") { configuration in
            configuration.domain = "example.test"
            configuration.nameServers = [dns.nameServer]
            // The callee is on loopback, but the client only knows it by name.
            configuration.mediaSecurity = .sdesOverUnencryptedSignaling
        }
        let calleeDelegate = RecordingCallDelegate()
        _ = bob.listen().acceptEach(with: calleeDelegate)
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: "bob", delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected], "DNS log:\n\(dns.log.suffix(1_500))")
        XCTAssertTrue(dns.log.contains("query[SRV] _sip._udp.example.test"))
        call.disconnect()
        XCTAssertEqual(calleeDelegate.waitForEnd(), [.connected, .disconnected(nil)])
    }

    /// The README's configuration: an outbound proxy by name whose only server is down (nobody
    /// on its port: refused at once), then a fallback proxy, which here is the callee itself.
    func testTheREADMEsFallbackProxyTakesTheCallWhenTheProxysServersFail() throws {
        let bob = try client("bob") { $0.incomingCallPolicy = .anyone }
        let dns = try startDNS([
            .service("_sip._udp.edge.example.test", target: "edge1.example.test", port: try SIPPeerProcess.freePort(), priority: 10, weight: 0),
            .service("_sip._udp.backup.example.test", target: "backup1.example.test", port: bob.client.localEndpoint.port, priority: 10, weight: 0),
            .host("edge1.example.test", address: "127.0.0.1"), .host("backup1.example.test", address: "127.0.0.1"),
        ])
        let alice = try client("alice") { configuration in
            configuration.domain = "example.test"
            configuration.mediaSecurity = .sdesOverUnencryptedSignaling
            // As the README sets them:
            configuration.outboundProxy = try? SIPServerAddress("sip:edge.example.test")
            configuration.fallbackProxies = [try! SIPServerAddress("sip:backup.example.test")]
            configuration.nameServers = [dns.nameServer]
        }
        let calleeDelegate = RecordingCallDelegate()
        _ = bob.listen().acceptEach(with: calleeDelegate)
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: "bob", delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected], "DNS log:\n\(dns.log.suffix(1_500))")
        XCTAssertTrue(dns.log.contains("query[SRV] _sip._udp.edge.example.test"))
        XCTAssertTrue(dns.log.contains("query[SRV] _sip._udp.backup.example.test"))
        call.disconnect()
        XCTAssertEqual(calleeDelegate.waitForEnd(), [.connected, .disconnected(nil)])
    }

    func testANameWithNoRecordsFailsFastWith31530() throws {
        let dns = try startDNS([])
        let alice = try client("alice") { $0.nameServers = [dns.nameServer] }
        let delegate = RecordingCallDelegate()
        let started = Date()
        let call = alice.connect(to: "sip:bob@nowhere.example.test", delegate: delegate)
        XCTAssertEqual(delegate.waitForEnd(), [.failed(.dnsResolution)])
        XCTAssertEqual(VoiceError.Code.dnsResolution.rawValue, 31530)
        // NXDOMAIN for NAPTR, each SRV name and A: answered at once, not after a transaction's 32 s.
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertEqual(call.state, .disconnected)
    }

    func testANameServerThatIsNotAnAddressIsRefused() {
        var configuration = VoiceClientConfiguration(identity: "alice", domain: "example.test", registers: false)
        configuration.nameServers = ["dns.example.com"]
        XCTAssertThrowsError(try VoiceClient(configuration: configuration)) { error in
            XCTAssertTrue("\(error)".contains("dns.example.com"), "\(error)")
        }
    }
}
