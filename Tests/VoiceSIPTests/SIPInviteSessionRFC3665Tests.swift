import VoiceMediaTypes
import VoiceSupport
import XCTest

@testable import VoiceSIP

/// RFC 3665 §3.1 (successful session establishment, Alice calls Bob directly), played with our
/// session as Bob: F1 INVITE in, F2 180 and F3 200 out, F4 ACK in, then Bob hangs up (the
/// RFC's F5 is Alice's BYE; our BYE follows its form with the roles swapped).
final class SIPInviteSessionRFC3665Tests: XCTestCase {
    typealias F = SIPInviteSessionFixture

    static let offer =
        [
            "v=0",
            "o=alice 2890844526 2890844526 IN IP4 client.atlanta.example.com",
            "s=-",
            "c=IN IP4 192.0.2.101",
            "t=0 0",
            "m=audio 49172 RTP/AVP 0",
            "a=rtpmap:0 PCMU/8000",
        ].joined(separator: "\r\n") + "\r\n"

    /// F1.
    static func invite() throws -> SIPRequest {
        try SIPDialogTests.request(
            [
                "INVITE sip:bob@biloxi.example.com SIP/2.0",
                "Via: SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74bf9",
                "Max-Forwards: 70",
                "From: Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl",
                "To: Bob <sip:bob@biloxi.example.com>",
                "Call-ID: 3848276298220188511@atlanta.example.com",
                "CSeq: 1 INVITE",
                "Contact: <sip:alice@client.atlanta.example.com;transport=tcp>",
                "Content-Type: application/sdp",
            ], body: offer)
    }

    static var bobConfiguration: SIPInviteSession.Configuration {
        let via = SIPVia(transport: "TCP", host: "client.biloxi.example.com", port: 5060)
        return SIPInviteSession.Configuration(
            localIdentity: SIPNameAddress(displayName: "Bob", uri: SIPURI(user: "bob", host: "biloxi.example.com")),
            contact: SIPURI(user: "bob", host: "client.biloxi.example.com", parameters: SIPParameters([("transport", "tcp")])),
            via: via,
            capabilities: SDPLocalCapabilities(address: "192.0.2.201", port: 3456, codecs: [.pcmu], encryption: .unencrypted))
    }

    func testBobAnswersAndHangsUp() throws {
        let invite = try Self.invite()
        var bob = F.callee(invite, Self.bobConfiguration)

        // F2 180 Ringing.
        let ringing = try F.single(F.responses(bob.ring(now: .zero)))
        XCTAssertEqual(ringing.statusCode, 180)
        XCTAssertEqual(ringing.headers.first("via"), "SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74bf9")
        XCTAssertEqual(ringing.headers.first("from"), "Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl")
        XCTAssertEqual(try ringing.headers.to(), try SIPNameAddress(parsing: "Bob <sip:bob@biloxi.example.com>;tag=\(bob.localTag)"))
        XCTAssertEqual(ringing.headers.first("call-id"), "3848276298220188511@atlanta.example.com")
        XCTAssertEqual(ringing.headers.first("cseq"), "1 INVITE")
        XCTAssertEqual(ringing.headers.first("contact"), "<sip:bob@client.biloxi.example.com;transport=tcp>")
        XCTAssertEqual(ringing.headers.first("content-length"), "0")

        // F3 200 OK with the PCMU answer.
        let ok = try F.single(F.responses(bob.accept(now: .milliseconds(2000))))
        XCTAssertEqual(ok.statusCode, 200)
        XCTAssertEqual(try ok.headers.to().tag, bob.localTag)
        XCTAssertEqual(ok.headers.first("contact"), "<sip:bob@client.biloxi.example.com;transport=tcp>")
        XCTAssertEqual(ok.headers.first("content-type"), "application/sdp")
        let answer = try F.sdp(ok.body)
        XCTAssertEqual(answer.media.first?.formats, ["0"])
        XCTAssertEqual(answer.media.first?.proto, "RTP/AVP")
        XCTAssertEqual(answer.media.first?.port, 3456)
        XCTAssertEqual(answer.connection?.address, "192.0.2.201")
        let media = try XCTUnwrap(bob.negotiatedMedia)
        XCTAssertEqual(media.remoteRTP, SDPTransportAddress(host: "192.0.2.101", port: 49172))
        XCTAssertEqual(media.codec, .pcmu)

        // F4 ACK.
        let ack = try SIPDialogTests.request([
            "ACK sip:bob@client.biloxi.example.com SIP/2.0",
            "Via: SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74bd5",
            "Max-Forwards: 70",
            "From: Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl",
            "To: Bob <sip:bob@biloxi.example.com>;tag=\(bob.localTag)",
            "Call-ID: 3848276298220188511@atlanta.example.com",
            "CSeq: 1 ACK",
        ])
        XCTAssertEqual(F.events(bob.receiveRequest(ack, now: .milliseconds(2100))), [.established(media)])

        // Bob hangs up.
        let bye = try F.single(F.requests(bob.hangUp(now: .seconds(60))))
        XCTAssertEqual(bye.uri.description, "sip:alice@client.atlanta.example.com;transport=tcp")
        XCTAssertEqual(try bye.headers.topVia().transport, "TCP")
        XCTAssertEqual(try bye.headers.topVia().host, "client.biloxi.example.com")
        XCTAssertEqual(try bye.headers.maxForwards(), 70)
        XCTAssertEqual(try bye.headers.from(), try SIPNameAddress(parsing: "Bob <sip:bob@biloxi.example.com>;tag=\(bob.localTag)"))
        XCTAssertEqual(try bye.headers.to(), try SIPNameAddress(parsing: "Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl"))
        XCTAssertEqual(bye.headers.first("call-id"), "3848276298220188511@atlanta.example.com")
        XCTAssertEqual(bye.headers.first("cseq"), "1 BYE")
        XCTAssertEqual(bye.headers.first("content-length"), "0")
        XCTAssertTrue(bye.headers["route"].isEmpty)
        let byeOK = SIPResponse(replyingTo: bye, statusCode: 200)
        XCTAssertEqual(F.events(bob.receiveResponse(byeOK, now: .seconds(60))), [.terminated(.localHangUp)])
    }
}
