import XCTest

@testable import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

final class SIPResponseReplyingTests: XCTestCase {
    private func request() throws -> SIPRequest {
        let text =
            "INVITE sip:bob@biloxi.com SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP pc33.atlanta.com;branch=z9hG4bK776asdhds\r\n"
            + "Via: SIP/2.0/UDP proxy.atlanta.com;branch=z9hG4bK1\r\n"
            + "Max-Forwards: 70\r\n"
            + "To: Bob <sip:bob@biloxi.com>\r\n"
            + "From: Alice <sip:alice@atlanta.com>;tag=1928301774\r\n"
            + "Call-ID: a84b4c76e66710@pc33.atlanta.com\r\n"
            + "CSeq: 314159 INVITE\r\n"
            + "Contact: <sip:alice@pc33.atlanta.com>\r\n"
            + "Timestamp: 54\r\n"
            + "Content-Length: 0\r\n\r\n"
        guard case .request(let r) = try SIPMessageParser().parse(datagram: Array(text.utf8)) else {
            return try XCTUnwrap(nil as SIPRequest?, "not a request")
        }
        return r
    }

    func testCopiesTransactionHeadersAndTagsTo() throws {
        let response = SIPResponse(replyingTo: try request(), statusCode: 180, toTag: "a6c85cf")
        XCTAssertEqual(response.reasonPhrase, "Ringing")
        XCTAssertEqual(response.headers["via"].count, 2)
        XCTAssertEqual(try response.headers.topVia().branch, "z9hG4bK776asdhds")
        XCTAssertEqual(try response.headers.to().tag, "a6c85cf")
        XCTAssertEqual(try response.headers.from().tag, "1928301774")
        XCTAssertEqual(try response.headers.callID(), "a84b4c76e66710@pc33.atlanta.com")
        XCTAssertEqual(try response.headers.cseq(), SIPCSeq(sequence: 314159, method: .invite))
        XCTAssertEqual(response.headers.first("timestamp"), "54")
        XCTAssertNil(response.headers.first("contact"))
        XCTAssertNil(response.headers.first("max-forwards"))
        XCTAssertEqual(try response.headers.contentLength(), 0)
    }

    func testTryingGetsNoTagAndExistingTagIsKept() throws {
        let trying = SIPResponse(replyingTo: try request(), statusCode: 100, toTag: "x")
        XCTAssertNil(try trying.headers.to().tag)
        var tagged = try request()
        tagged.headers.set("To", "<sip:bob@biloxi.com>;tag=orig")
        XCTAssertEqual(try SIPResponse(replyingTo: tagged, statusCode: 200, toTag: "new").headers.to().tag, "orig")
    }

    func testBodyAndPhrases() throws {
        var response = SIPResponse(replyingTo: try request(), statusCode: 200)
        response.setBody(Array("v=0\r\n".utf8), contentType: "application/sdp")
        XCTAssertEqual(try response.headers.contentLength(), 5)
        XCTAssertEqual(response.headers.first("content-type"), "application/sdp")
        let reparsed = try SIPMessageParser().parse(datagram: response.serialized())
        XCTAssertEqual(reparsed.body, Array("v=0\r\n".utf8))
        XCTAssertEqual(SIPResponse.standardReasonPhrase(for: 487), "Request Terminated")
        XCTAssertEqual(SIPResponse.standardReasonPhrase(for: 499), "Client Error")
        XCTAssertEqual(SIPResponse.standardReasonPhrase(for: 699), "Global Failure")
    }
}

final class SIPIdentifierGeneratorTests: XCTestCase {
    func testShapesAndUniqueness() throws {
        let branch = SIPIdentifierGenerator.branch()
        XCTAssertTrue(branch.hasPrefix("z9hG4bK"))
        XCTAssertEqual(branch.count, 27)
        XCTAssertTrue(SIPIdentifierGenerator.callID(host: "10.0.0.1").hasSuffix("@10.0.0.1"))
        XCTAssertEqual(SIPIdentifierGenerator.tag().count, 16)
        var seen = Set<String>()
        for _ in 0..<1000 { seen.insert(SIPIdentifierGenerator.tag()) }
        XCTAssertEqual(seen.count, 1000)
        let via = try SIPVia(parsing: "SIP/2.0/UDP h;branch=\(branch)")
        XCTAssertTrue(via.hasRFC3261Branch)
    }
}
