import XCTest

@testable import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

final class SIPCoreViaStampingTests: XCTestCase {
    private func request(via: [String], extra: [String] = []) throws -> SIPRequest {
        var lines = ["INVITE sip:bob@biloxi.example.com SIP/2.0"]
        lines += via.map { "Via: \($0)" }
        lines += [
            "Max-Forwards: 70", "To: Bob <sip:bob@biloxi.example.com>",
            "From: Alice <sip:alice@atlanta.example.com>;tag=1928301774", "Call-ID: a84b4c76e66710@pc33.atlanta.example.com",
            "CSeq: 314159 INVITE",
        ]
        lines += extra + ["Content-Length: 0", "", ""]
        return try XCTUnwrap(SIPMessageParser().parse(datagram: Array(lines.joined(separator: "\r\n").utf8)).request)
    }

    // MARK: - Received requests

    func testRFC3581Section6RportIsFilledAndReceivedAdded() throws {
        let received = try request(via: ["SIP/2.0/UDP 10.1.1.1:4540;rport;branch=z9hG4bKkjshdyff"])
        let stamped = try SIPViaStamping.stampReceived(received, sourceHost: "192.0.2.1", sourcePort: 9988)
        XCTAssertEqual(stamped.headers["Via"], ["SIP/2.0/UDP 10.1.1.1:4540;received=192.0.2.1;rport=9988;branch=z9hG4bKkjshdyff"])
        XCTAssertEqual(try stamped.headers.topVia().rport, 9988)
        XCTAssertEqual(try stamped.headers.topVia().received, "192.0.2.1")
        // Everything else is untouched.
        XCTAssertEqual(stamped.headers.count, received.headers.count)
        XCTAssertEqual(stamped.headers.filter { $0.name != "Via" }, received.headers.filter { $0.name != "Via" })
        XCTAssertEqual(stamped.uri, received.uri)
    }

    func testRFC3261Section18_2_1ReceivedForADomainName() throws {
        let received = try request(via: ["SIP/2.0/UDP bobspc.biloxi.com:5060"])
        let stamped = try SIPViaStamping.stampReceived(received, sourceHost: "192.0.2.4", sourcePort: 5060)
        XCTAssertEqual(stamped.headers["Via"], ["SIP/2.0/UDP bobspc.biloxi.com:5060;received=192.0.2.4"])
    }

    func testRportIsFilledEvenWhenTheAddressMatches() throws {
        let received = try request(via: ["SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK1;rport"])
        let stamped = try SIPViaStamping.stampReceived(received, sourceHost: "192.0.2.1", sourcePort: 5060)
        XCTAssertEqual(stamped.headers["Via"], ["SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK1;received=192.0.2.1;rport=5060"])
    }

    func testMatchingAddressWithoutRportIsLeftAlone() throws {
        for (via, source) in [
            ("SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK1", "192.0.2.1"),
            ("SIP/2.0/UDP [2001:db8::1]:5060;branch=z9hG4bK1", "2001:DB8:0:0::1"),
            ("SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK1;rport=7000", "192.0.2.1"),
        ] {
            let received = try request(via: [via])
            XCTAssertEqual(try SIPViaStamping.stampReceived(received, sourceHost: source, sourcePort: 7000), received, via)
        }
    }

    func testIPv6SourceAndAFilledRportFromAnotherAddress() throws {
        let received = try request(via: ["SIP/2.0/UDP [2001:db8::9]:5060;rport=5062;branch=z9hG4bK1"])
        let stamped = try SIPViaStamping.stampReceived(received, sourceHost: "2001:db8::1", sourcePort: 40000)
        XCTAssertEqual(stamped.headers["Via"], ["SIP/2.0/UDP [2001:db8::9]:5060;received=2001:db8::1;rport=5062;branch=z9hG4bK1"])
        XCTAssertEqual(try stamped.headers.topVia().received, "2001:db8::1")
    }

    func testOnlyTheTopViaOfAJoinedFieldChanges() throws {
        let received = try request(
            via: [
                "SIP/2.0/UDP a.example.com;branch=z9hG4bKa;received=10.0.0.1, SIP/2.0/TCP b.example.com;branch=z9hG4bKb",
                "SIP/2.0/UDP c.example.com",
            ])
        let stamped = try SIPViaStamping.stampReceived(received, sourceHost: "203.0.113.5", sourcePort: 5060)
        XCTAssertEqual(
            stamped.headers["Via"],
            [
                "SIP/2.0/UDP a.example.com;branch=z9hG4bKa;received=203.0.113.5, SIP/2.0/TCP b.example.com;branch=z9hG4bKb",
                "SIP/2.0/UDP c.example.com",
            ])
    }

    func testMissingOrBrokenViaThrows() throws {
        var noVia = try request(via: ["SIP/2.0/UDP a.example.com"])
        noVia.headers.remove("Via")
        XCTAssertThrowsError(try SIPViaStamping.stampReceived(noVia, sourceHost: "192.0.2.1", sourcePort: 1)) { error in
            XCTAssertEqual((error as? SIPParseError)?.kind, .missingHeader)
        }
        var broken = noVia
        broken.headers.add("Via", "SIP/2.0/UDP")
        XCTAssertThrowsError(try SIPViaStamping.stampReceived(broken, sourceHost: "192.0.2.1", sourcePort: 1)) { error in
            XCTAssertEqual((error as? SIPParseError)?.kind, .invalidHeaderValue)
        }
    }

    // MARK: - Response destinations

    private func destination(_ via: String) throws -> SIPResponseDestination {
        SIPViaStamping.responseDestination(for: try SIPVia(parsing: via))
    }

    func testRFC3581ResponseGoesToReceivedAndRport() throws {
        XCTAssertEqual(
            try destination("SIP/2.0/UDP 10.1.1.1:4540;received=192.0.2.1;rport=9988;branch=z9hG4bKkjshdyff"),
            SIPResponseDestination(reuseConnection: false, host: "192.0.2.1", port: 9988, transport: "UDP", fromReceivingSocket: true))
    }

    func testReceivedWithoutRportUsesTheSentByPort() throws {
        XCTAssertEqual(
            try destination("SIP/2.0/UDP bobspc.biloxi.com:5070;received=192.0.2.4"),
            SIPResponseDestination(reuseConnection: false, host: "192.0.2.4", port: 5070, transport: "UDP"))
        XCTAssertEqual(
            try destination("SIP/2.0/UDP bobspc.biloxi.com;received=192.0.2.4"),
            SIPResponseDestination(reuseConnection: false, host: "192.0.2.4", port: 5060, transport: "UDP"))
    }

    func testSentByWithDefaultPorts() throws {
        XCTAssertEqual(
            try destination("SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bK776asdhds"),
            SIPResponseDestination(reuseConnection: false, host: "pc33.atlanta.example.com", port: 5060, transport: "UDP"))
        XCTAssertEqual(
            try destination("SIP/2.0/UDP [2001:db8::1];branch=z9hG4bK1"),
            SIPResponseDestination(reuseConnection: false, host: "2001:db8::1", port: 5060, transport: "UDP"))
    }

    func testMaddrResponseIsMulticastWithTTL() throws {
        // The Via of RFC 3261 §20.42's example, which RFC 3261 §18.2.2 sends to maddr.
        XCTAssertEqual(
            try destination("SIP/2.0/UDP sip.example.com;branch=7c337f30d7ce.1;maddr=239.128.16.254;ttl=16"),
            SIPResponseDestination(
                reuseConnection: false, host: "239.128.16.254", port: 5060, transport: "UDP", isMulticast: true, ttl: 16))
        XCTAssertEqual(
            try destination("SIP/2.0/UDP sip.example.com:5080;maddr=192.0.2.7"),
            SIPResponseDestination(reuseConnection: false, host: "192.0.2.7", port: 5080, transport: "UDP", isMulticast: false, ttl: 1))
    }

    func testReliableTransportsReuseTheConnection() throws {
        XCTAssertEqual(
            try destination("SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74bf9;received=192.0.2.101"),
            SIPResponseDestination(reuseConnection: true, host: "192.0.2.101", port: 5060, transport: "TCP"))
        XCTAssertEqual(
            try destination("SIP/2.0/TLS client.atlanta.example.com;branch=z9hG4bK74bf9;rport=6000;received=192.0.2.101"),
            SIPResponseDestination(reuseConnection: true, host: "192.0.2.101", port: 5061, transport: "TLS"))
        XCTAssertEqual(
            try destination("SIP/2.0/WSS df7jal23ls0d.invalid;branch=z9hG4bKasudf"),
            SIPResponseDestination(reuseConnection: true, host: "df7jal23ls0d.invalid", port: 5060, transport: "WSS"))
        XCTAssertTrue(SIPViaStamping.isReliable("tcp"))
        XCTAssertFalse(SIPViaStamping.isReliable("UDP"))
    }

    func testResponseDestinationFromAResponse() throws {
        let received = try request(via: ["SIP/2.0/UDP 10.1.1.1:4540;rport;branch=z9hG4bKkjshdyff"])
        let stamped = try SIPViaStamping.stampReceived(received, sourceHost: "192.0.2.1", sourcePort: 9988)
        let response = SIPResponse(replyingTo: stamped, statusCode: 180, toTag: "x")
        XCTAssertEqual(
            try SIPViaStamping.responseDestination(for: response),
            SIPResponseDestination(reuseConnection: false, host: "192.0.2.1", port: 9988, transport: "UDP", fromReceivingSocket: true))
        XCTAssertThrowsError(try SIPViaStamping.responseDestination(for: SIPResponse(statusCode: 200, reasonPhrase: "OK")))
    }
}
