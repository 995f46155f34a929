import VoiceAddress
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent

/// A dual-stack host names itself in the family of the hop each message goes over: Via
/// sent-by, Contact and SDP addresses that are our advertised IPv4 address become our IPv6
/// address toward an IPv6 hop; nothing else changes.
final class SIPHopAddressingTests: XCTestCase {
    private let addressing = SIPHopAddressing(
        advertised: IPAddress("192.0.2.10")!, ipv4: IPAddress("192.0.2.10")!, ipv6: IPAddress("2001:db8::10")!)
    private let parser = SIPMessageParser()

    private func message(_ text: String) throws -> SIPMessage {
        try parser.parse(datagram: Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8))
    }

    private static let sdp = """
        v=0
        o=- 42 1 IN IP4 192.0.2.10
        s=-
        c=IN IP4 192.0.2.10
        t=0 0
        m=audio 40000 RTP/AVP 0
        a=rtcp:40001 IN IP4 192.0.2.10
        a=sendrecv
        m=audio 40002 RTP/AVP 0
        c=IN IP4 203.0.113.7
        """ + "\n"

    private func invite(via: String = "192.0.2.10:5060", contact: String = "<sip:alice@192.0.2.10:5060>", body: String = sdp) throws -> SIPMessage {
        try message(
            """
            INVITE sip:bob@pbx.example.test SIP/2.0
            Via: SIP/2.0/UDP \(via);branch=z9hG4bK-1;rport
            Via: SIP/2.0/UDP 192.0.2.10:5070;branch=z9hG4bK-0
            Max-Forwards: 70
            From: <sip:alice@example.test>;tag=a
            To: <sip:bob@example.test>
            Call-ID: hop-1
            CSeq: 1 INVITE
            Contact: \(contact)
            Content-Type: application/sdp
            Content-Length: \(body.utf8.count + body.filter { $0 == "\n" }.count)

            \(body)
            """)
    }

    func testARequestToAnIPv6HopNamesOurIPv6AddressEverywhere() throws {
        let fitted = try XCTUnwrap(addressing.fitted(try invite(), toward: IPAddress("2001:db8::1")!).request)
        let via = try fitted.headers.via()
        XCTAssertEqual(via[0].host, "2001:db8::10")
        XCTAssertEqual(via[0].port, 5060)
        XCTAssertEqual(via[0].branch, "z9hG4bK-1", "the branch and rport stay")
        XCTAssertTrue(via[0].hasRport)
        XCTAssertEqual(via[1].host, "192.0.2.10", "only the top Via is ours to change")
        guard case .addresses(let contacts)? = try fitted.headers.contact() else { return XCTFail("no Contact") }
        XCTAssertEqual(contacts.map(\.uri.description), ["sip:alice@[2001:db8::10]:5060"])
        let sdp = try SDPSessionDescription(parsing: fitted.body)
        XCTAssertEqual(sdp.origin.address, "192.0.2.10", "o= names the session and stays (RFC 3264 §8)")
        XCTAssertEqual(sdp.connection, SDPConnection(addressType: "IP6", address: "2001:db8::10"))
        XCTAssertEqual(sdp.media[0].rtcp?.connection?.address, "2001:db8::10")
        XCTAssertEqual(sdp.media[1].connection?.address, "203.0.113.7", "an address not ours stays")
        // The serialized message carries the new body's length.
        let wire = try parser.parse(datagram: SIPMessage.request(fitted).serialized())
        XCTAssertEqual(wire.body, fitted.body)
    }

    func testAHopInTheAdvertisedFamilyChangesNothing() throws {
        let original = try invite()
        XCTAssertEqual(addressing.fitted(original, toward: IPAddress("192.0.2.1")!), original)
        XCTAssertEqual(addressing.fitted(original, toward: IPAddress("127.0.0.1")!), original)
    }

    func testAHostWithoutTheHopsFamilyChangesNothing() throws {
        let ipv4Only = SIPHopAddressing(advertised: IPAddress("192.0.2.10")!, ipv4: IPAddress("192.0.2.10")!, ipv6: nil)
        let original = try invite()
        XCTAssertEqual(ipv4Only.fitted(original, toward: IPAddress("2001:db8::1")!), original)
    }

    /// An IPv6-advertising host (an IPv6 server address given) toward an IPv4 hop: the reverse.
    func testAnIPv6AdvertisingHostNamesItsIPv4AddressToAnIPv4Hop() throws {
        let six = SIPHopAddressing(advertised: IPAddress("2001:db8::10")!, ipv4: IPAddress("192.0.2.10")!, ipv6: IPAddress("2001:db8::10")!)
        let body = Self.sdp.replacingOccurrences(of: "IN IP4 192.0.2.10", with: "IN IP6 2001:db8::10")
        let original = try invite(via: "[2001:db8::10]:5060", contact: "<sip:alice@[2001:db8::10]:5060;transport=udp>", body: body)
        let fitted = try XCTUnwrap(six.fitted(original, toward: IPAddress("198.51.100.1")!).request)
        XCTAssertEqual(try fitted.headers.topVia().host, "192.0.2.10")
        guard case .addresses(let contacts)? = try fitted.headers.contact() else { return XCTFail("no Contact") }
        XCTAssertEqual(contacts[0].uri.description, "sip:alice@192.0.2.10:5060;transport=udp")
        let sdp = try SDPSessionDescription(parsing: fitted.body)
        XCTAssertEqual(sdp.connection, SDPConnection(addressType: "IP4", address: "192.0.2.10"))
    }

    /// A request fitted to one family and sent again over the other (a failover from an IPv6
    /// address of the server to its IPv4 one) is fitted again: nothing of the first hop stays.
    func testAFittedRequestSentOverTheOtherFamilyIsRefitted() throws {
        let original = try invite()
        let overIPv6 = addressing.fitted(original, toward: IPAddress("2001:db8::1")!)
        let overIPv4 = try XCTUnwrap(addressing.fitted(overIPv6, toward: IPAddress("198.51.100.1")!).request)
        XCTAssertEqual(try overIPv4.headers.topVia().host, "192.0.2.10")
        guard case .addresses(let contacts)? = try overIPv4.headers.contact() else { return XCTFail("no Contact") }
        XCTAssertEqual(contacts[0].uri.host, "192.0.2.10")
        XCTAssertEqual(try SDPSessionDescription(parsing: overIPv4.body), try SDPSessionDescription(parsing: original.request?.body ?? []))
    }

    /// The registrar's 200 lists our binding as we sent it (fitted to IPv6); the registration
    /// gets it back under the advertised address, and other bindings stay as they are.
    func testARegisterResponseIsUnfittedForTheRegistration() throws {
        let text = [
            "SIP/2.0 200 OK", "Via: SIP/2.0/UDP [2001:db8::10]:5060;branch=z9hG4bK-r", "From: <sip:alice@example.test>;tag=a",
            "To: <sip:alice@example.test>;tag=r", "Call-ID: reg-1", "CSeq: 2 REGISTER",
            "Contact: <sip:alice@[2001:db8::10]:5060>;expires=120, <sip:alice@[2001:db8::99]:5060>;expires=3000",
            "Content-Length: 0", "", "",
        ].joined(separator: "\n")
        let response = try XCTUnwrap(try message(text).response)
        guard case .addresses(let contacts)? = try addressing.unfitted(registerResponse: response).headers.contact() else {
            return XCTFail("no Contact")
        }
        XCTAssertEqual(contacts.map(\.uri.host), ["192.0.2.10", "2001:db8::99"])
        XCTAssertEqual(contacts.map(\.expires), [120, 3000])
    }

    /// A NAT's address learned by STUN (or a relay's) is what the peer must use: it stays.
    func testAddressesThatAreNotTheAdvertisedOneStay() throws {
        let body = Self.sdp.replacingOccurrences(of: "192.0.2.10", with: "198.51.100.77")
        let original = try invite(via: "198.51.100.77:61000", contact: "<sip:alice@198.51.100.77:61000>", body: body)
        XCTAssertEqual(addressing.fitted(original, toward: IPAddress("2001:db8::1")!), original)
    }

    func testAResponsesContactAndAnswerFollowTheHop() throws {
        let body = Self.sdp
        let response = try message(
            """
            SIP/2.0 200 OK
            Via: SIP/2.0/UDP [2001:db8::1]:5060;branch=z9hG4bK-9
            From: <sip:bob@example.test>;tag=b
            To: <sip:alice@example.test>;tag=a
            Call-ID: hop-2
            CSeq: 1 INVITE
            Contact: "Alice" <sip:alice@192.0.2.10:5060>;expires=60, <sip:alice@198.51.100.77>
            Content-Type: application/sdp
            Content-Length: \(body.utf8.count + body.filter { $0 == "\n" }.count)

            \(body)
            """)
        let fitted = try XCTUnwrap(addressing.fitted(response, toward: IPAddress("2001:db8::1")!).response)
        XCTAssertEqual(try fitted.headers.topVia().host, "2001:db8::1", "a response's Via is the peer's")
        guard case .addresses(let contacts)? = try fitted.headers.contact() else { return XCTFail("no Contact") }
        XCTAssertEqual(contacts.map(\.uri.host), ["2001:db8::10", "198.51.100.77"])
        XCTAssertEqual(contacts[0].displayName, "Alice")
        XCTAssertEqual(contacts[0].expires, 60)
        XCTAssertEqual(try SDPSessionDescription(parsing: fitted.body).connection?.address, "2001:db8::10")
    }

    /// An answer to an IPv4 offer that came through a proxy reached over IPv6: the signaling
    /// names our IPv6 address, the SDP stays in the offer's family (RFC 6157 §4).
    func testTheSDPFollowsTheMediaPeersFamilyWhereItIsKnown() throws {
        let fitted = try XCTUnwrap(
            addressing.fitted(try invite(), toward: IPAddress("2001:db8::1")!, mediaPeer: IPAddress("203.0.113.50")!).request)
        XCTAssertEqual(try fitted.headers.topVia().host, "2001:db8::10")
        guard case .addresses(let contacts)? = try fitted.headers.contact() else { return XCTFail("no Contact") }
        XCTAssertEqual(contacts[0].uri.host, "2001:db8::10")
        XCTAssertEqual(try SDPSessionDescription(parsing: fitted.body).connection?.address, "192.0.2.10")
        // And an IPv6 media peer behind an IPv4 hop gets our IPv6 address in the SDP.
        let reverse = try XCTUnwrap(
            addressing.fitted(try invite(), toward: IPAddress("198.51.100.1")!, mediaPeer: IPAddress("2001:db8::50")!).request)
        XCTAssertEqual(try reverse.headers.topVia().host, "192.0.2.10")
        XCTAssertEqual(try SDPSessionDescription(parsing: reverse.body).connection?.address, "2001:db8::10")
    }

    /// A body we cannot parse, or that is not SDP, goes as it was; the headers still follow.
    func testABodyThatIsNotSDPIsLeftAlone() throws {
        let garbage = "not an sdp 192.0.2.10\n"
        let original = try invite(body: garbage)
        let fitted = try XCTUnwrap(addressing.fitted(original, toward: IPAddress("2001:db8::1")!).request)
        XCTAssertEqual(fitted.body, original.request?.body)
        XCTAssertEqual(try fitted.headers.topVia().host, "2001:db8::10")
    }
}
