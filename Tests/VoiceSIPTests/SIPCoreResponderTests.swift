import VoiceSIPTestVectors
import XCTest

@testable import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

final class SIPCoreResponderTests: XCTestCase {
    private struct NoResponse: Error {}
    private let responder = SIPCoreResponder()
    private let via = "SIP/2.0/UDP pc33.example.org;branch=z9hG4bK776asdhds"
    private let from = "Bob <sip:bob@example.org>;tag=1928301774"
    private let callID = "a84b4c76e66710@pc33.example.org"

    private func request(
        _ method: String, uri: String = "sip:alice@192.0.2.10", toTag: String? = nil, maxForwards: Int = 70,
        extra: [String] = []
    ) throws -> SIPRequest {
        var lines = [
            "\(method) \(uri) SIP/2.0", "Via: \(via)", "Max-Forwards: \(maxForwards)",
            "To: <sip:alice@example.com>" + (toTag.map { ";tag=\($0)" } ?? ""), "From: \(from)", "Call-ID: \(callID)",
            "CSeq: 314159 \(method)",
        ]
        lines += extra + ["Content-Length: 0", "", ""]
        return try XCTUnwrap(SIPMessageParser().parse(datagram: Array(lines.joined(separator: "\r\n").utf8)).request)
    }

    private func response(_ disposition: SIPCoreDisposition, file: StaticString = #filePath, line: UInt = #line) throws -> SIPResponse {
        guard case .respond(let response) = disposition else {
            XCTFail("expected a response, got \(disposition)", file: file, line: line)
            throw NoResponse()
        }
        return response
    }

    private func fields(_ response: SIPResponse) -> [String] { response.headers.map { "\($0.name): \($0.value)" } }

    private func commonFields(method: String, to: String = "<sip:alice@example.com>;tag=uas1") -> [String] {
        ["Via: \(via)", "To: \(to)", "From: \(from)", "Call-ID: \(callID)", "CSeq: 314159 \(method)"]
    }

    // MARK: - Rows

    func testACKIsNeverAnswered() throws {
        XCTAssertEqual(responder.answer(try request("ACK", toTag: "gone"), dialogExists: false, toTag: "uas1"), .drop)
        XCTAssertEqual(responder.answer(try request("ACK", toTag: "d1"), dialogExists: true, toTag: "uas1"), .passOn)
        XCTAssertEqual(responder.answer(try request("ACK"), dialogExists: false, toTag: "uas1"), .passOn)
        XCTAssertEqual(responder.answer(try request("ACK", maxForwards: 0), dialogExists: false, toTag: "uas1"), .passOn)
        XCTAssertEqual(responder.answer(try request("ACK", uri: "tel:+15551234"), dialogExists: false, toTag: "uas1"), .passOn)
    }

    func testMaxForwardsZero() throws {
        let invite = try response(responder.answer(try request("INVITE", maxForwards: 0), dialogExists: false, toTag: "uas1"))
        XCTAssertEqual(invite.statusCode, 483)
        XCTAssertEqual(invite.reasonPhrase, "Too Many Hops")
        XCTAssertEqual(fields(invite), commonFields(method: "INVITE") + ["Content-Length: 0"])
        let bye = try response(responder.answer(try request("BYE", toTag: "d1", maxForwards: 0), dialogExists: true, toTag: "uas1"))
        XCTAssertEqual(bye.statusCode, 483)
        XCTAssertEqual(fields(bye), commonFields(method: "BYE", to: "<sip:alice@example.com>;tag=d1") + ["Content-Length: 0"])
        // OPTIONS with Max-Forwards 0 is answered as an OPTIONS.
        let options = try response(responder.answer(try request("OPTIONS", maxForwards: 0), dialogExists: false, toTag: "uas1"))
        XCTAssertEqual(options.statusCode, 200)
    }

    func testUnknownMethodIs501() throws {
        let answer = try response(responder.answer(try request("FOO"), dialogExists: false, toTag: "uas1"))
        XCTAssertEqual(answer.statusCode, 501)
        XCTAssertEqual(answer.reasonPhrase, "Not Implemented")
        XCTAssertEqual(fields(answer), commonFields(method: "FOO") + ["Content-Length: 0"])
    }

    func testKnownButUnsupportedMethodsAre405WithAllow() throws {
        for method in ["SUBSCRIBE", "REFER", "MESSAGE", "PUBLISH", "NOTIFY", "UPDATE", "PRACK", "INFO", "REGISTER"] {
            let answer = try response(responder.answer(try request(method), dialogExists: false, toTag: "uas1"))
            XCTAssertEqual(answer.statusCode, 405, method)
            XCTAssertEqual(answer.reasonPhrase, "Method Not Allowed")
            XCTAssertEqual(
                fields(answer), commonFields(method: method) + ["Allow: INVITE, ACK, CANCEL, BYE, OPTIONS", "Content-Length: 0"], method)
        }
        // Configurable: allow INFO.
        var configuration = SIPCoreResponder.Configuration()
        configuration.allowedMethods.append(.info)
        let withInfo = SIPCoreResponder(configuration: configuration)
        XCTAssertEqual(withInfo.answer(try request("INFO", toTag: "d1"), dialogExists: true, toTag: "uas1"), .passOn)
    }

    func testUnsupportedRequestURISchemeIs416() throws {
        // RFC 4475 §3.3.2 unkscm, with its Via and tags.
        let unkscm = try XCTUnwrap(SIPMessageParser().parse(datagram: wire(RFC4475.unkscm)).request)
        let answer = try response(responder.answer(unkscm, dialogExists: false, toTag: "uas1"))
        XCTAssertEqual(answer.statusCode, 416)
        XCTAssertEqual(answer.reasonPhrase, "Unsupported URI Scheme")
        XCTAssertEqual(
            fields(answer),
            [
                "To: <sip:user@example.com>;tag=uas1", "From: sip:caller@example.net;tag=384",
                "Call-ID: unkscm.nasdfasser0q239nwsdfasdkl34", "CSeq: 3923423 OPTIONS",
                "Via: SIP/2.0/TCP host9.example.com;branch=z9hG4bKkdjuw39234", "Content-Length: 0",
            ])
        let tel = try response(responder.answer(try request("INVITE", uri: "tel:+1-201-555-0123"), dialogExists: false, toTag: "uas1"))
        XCTAssertEqual(tel.statusCode, 416)
        XCTAssertEqual(responder.answer(try request("INVITE", uri: "sips:alice@example.com"), dialogExists: false, toTag: "uas1"), .passOn)
    }

    func testUnknownRequireIs420WithUnsupported() throws {
        let answer = try response(
            responder.answer(try request("INVITE", extra: ["Require: 100rel, foo", "Require: timer"]), dialogExists: false, toTag: "uas1"))
        XCTAssertEqual(answer.statusCode, 420)
        XCTAssertEqual(answer.reasonPhrase, "Bad Extension")
        XCTAssertEqual(fields(answer), commonFields(method: "INVITE") + ["Unsupported: 100rel, foo, timer", "Content-Length: 0"])

        let partly = SIPCoreResponder(configuration: .init(supportedExtensions: ["100rel", "timer"]))
        let partial = try response(
            partly.answer(try request("INVITE", extra: ["Require: 100rel, foo"]), dialogExists: false, toTag: "uas1"))
        XCTAssertEqual(partial.headers["Unsupported"], ["foo"])
        XCTAssertEqual(partly.answer(try request("INVITE", extra: ["Require: timer"]), dialogExists: false, toTag: "uas1"), .passOn)
        // CANCEL's Require is not checked (RFC 3261 §8.2.2.3).
        XCTAssertEqual(responder.answer(try request("CANCEL", extra: ["Require: foo"]), dialogExists: false, toTag: "uas1"), .passOn)
        // A Require with an empty element is a bad request.
        let broken = try response(responder.answer(try request("INVITE", extra: ["Require: foo,,bar"]), dialogExists: false, toTag: "uas1"))
        XCTAssertEqual(broken.statusCode, 400)
    }

    func testToTagWithoutDialogIs481() throws {
        let answer = try response(responder.answer(try request("BYE", toTag: "314159"), dialogExists: false, toTag: "uas1"))
        XCTAssertEqual(answer.statusCode, 481)
        XCTAssertEqual(answer.reasonPhrase, "Call/Transaction Does Not Exist")
        XCTAssertEqual(fields(answer), commonFields(method: "BYE", to: "<sip:alice@example.com>;tag=314159") + ["Content-Length: 0"])
        XCTAssertEqual(responder.answer(try request("BYE", toTag: "314159"), dialogExists: true, toTag: "uas1"), .passOn)
        XCTAssertEqual(responder.answer(try request("INVITE", toTag: "314159"), dialogExists: true, toTag: "uas1"), .passOn)
        let options = try response(responder.answer(try request("OPTIONS", toTag: "314159"), dialogExists: false, toTag: "uas1"))
        XCTAssertEqual(options.statusCode, 481)
        XCTAssertEqual(responder.answer(try request("OPTIONS", toTag: "314159"), dialogExists: true, toTag: "uas1"), .passOn)
    }

    func testOptionsOutsideADialog() throws {
        let answer = try response(responder.answer(try request("OPTIONS"), dialogExists: false, toTag: "uas1"))
        XCTAssertEqual(answer.statusCode, 200)
        XCTAssertEqual(answer.reasonPhrase, "OK")
        XCTAssertEqual(
            fields(answer),
            commonFields(method: "OPTIONS") + [
                "Allow: INVITE, ACK, CANCEL, BYE, OPTIONS", "Accept: application/sdp", "Supported: ", "Content-Length: 0",
            ])
        XCTAssertTrue(answer.body.isEmpty)
        // It survives a round trip, with the empty Supported.
        let parsed = try XCTUnwrap(SIPMessageParser().parse(datagram: answer.serialized()).response)
        XCTAssertEqual(parsed.headers["Supported"], [""])
    }

    func testOptionsWithCapabilitiesSDPAndServer() throws {
        let sdp = Array("v=0\r\no=- 1 1 IN IP4 192.0.2.10\r\ns=-\r\nc=IN IP4 192.0.2.10\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n".utf8)
        let responder = SIPCoreResponder(configuration: .init(supportedExtensions: ["replaces", "timer"], serverName: "VoiceSDK/1.0"))
        let answer = try response(responder.answer(try request("OPTIONS"), dialogExists: false, toTag: "uas1", sdp: sdp))
        XCTAssertEqual(
            fields(answer),
            commonFields(method: "OPTIONS") + [
                "Allow: INVITE, ACK, CANCEL, BYE, OPTIONS", "Accept: application/sdp", "Supported: replaces, timer",
                "Server: VoiceSDK/1.0", "Content-Type: application/sdp", "Content-Length: \(sdp.count)",
            ])
        XCTAssertEqual(answer.body, sdp)
    }

    func testEverythingElseIsPassedOn() throws {
        for method in ["INVITE", "CANCEL"] {
            XCTAssertEqual(responder.answer(try request(method), dialogExists: false, toTag: "uas1"), .passOn, method)
        }
        XCTAssertEqual(responder.answer(try request("BYE", toTag: "d1"), dialogExists: true, toTag: "uas1"), .passOn)
    }

    // MARK: - Malformed requests

    func testMalformedRFC4475VectorsGetTheirStatusWhenAddressable() throws {
        // What the salvage makes of each invalid message of RFC 4475: nil when the fields a
        // response needs did not survive.
        let expected: [String: Int?] = [
            "badinv01": nil,  // its only Via is broken
            "clerr": 400, "ncl": 400,
            "scalar02": nil,  // CSeq number out of range
            "scalarlg": nil,  // a response
            "quotbal": 400, "ltgtruri": 400, "lwsruri": 400,
            "lwsstart": 400, "trws": 400, "escruri": 400, "baddate": 400, "regbadct": 400, "badaspec": 400, "baddn": 400,
            "badvers": 505, "mismatch01": 400, "mismatch02": 400,
            "bigcode": nil,  // a response
            "insuf": nil,  // no From, To, Call-ID
            "multi01": 400, "mcl01": 400,
        ]
        var seen: Set<String> = []
        for vector in RFC4475.invalid {
            let bytes = wire(vector.text)
            let error: SIPParseError
            do throws(SIPParseError) {
                _ = try SIPMessageParser().parse(datagram: bytes)
                XCTFail("\(vector.name) parsed")
                continue
            } catch let e {
                error = e
            }
            let answer = responder.answer(malformed: bytes, error: error, toTag: "uas1")
            XCTAssertEqual(answer?.statusCode, expected[vector.name] ?? nil, "\(vector.name): \(error)")
            if let answer {
                XCTAssertEqual(answer.reasonPhrase, error.reasonPhrase)
                XCTAssertFalse(answer.headers["Via"].isEmpty)
            }
            seen.insert(vector.name)
        }
        XCTAssertEqual(seen, Set(expected.keys))
    }

    func testMalformedRequestCopiesTheSurvivingFields() throws {
        let mismatch = try XCTUnwrap(RFC4475.invalid.first { $0.name == "mismatch01" })
        let answer = try XCTUnwrap(
            responder.answer(malformed: wire(mismatch.text), error: SIPParseError(.methodMismatch, "x"), toTag: "uas1"))
        XCTAssertEqual(answer.statusCode, 400)
        XCTAssertEqual(answer.reasonPhrase, "Bad Request (CSeq method mismatch)")
        XCTAssertEqual(
            fields(answer),
            [
                "To: <sip:j.user@example.com>;tag=uas1", "From: sip:caller@example.net;tag=34525",
                "Call-ID: mismatch01.dj0234sxdfl3", "CSeq: 8 INVITE", "Via: SIP/2.0/UDP host.example.com;branch=z9hG4bKkdjuw",
                "Content-Length: 0",
            ])

        let badvers = try XCTUnwrap(RFC4475.invalid.first { $0.name == "badvers" })
        let version = try XCTUnwrap(
            responder.answer(malformed: wire(badvers.text), error: SIPParseError(.versionNotSupported, "x"), toTag: "uas1"))
        XCTAssertEqual(version.statusCode, 505)
        XCTAssertEqual(version.headers["Via"], ["SIP/7.0/UDP c.example.com;branch=z9hG4bKkdjuw"])

        // RFC 4475 §3.3.8 multi01: repeated single-valued fields; the first of each is answered.
        let multi = try XCTUnwrap(RFC4475.invalid.first { $0.name == "multi01" })
        let repeated = try XCTUnwrap(
            responder.answer(malformed: wire(multi.text), error: SIPParseError(.duplicateHeader, "x"), toTag: "uas1"))
        XCTAssertEqual(
            fields(repeated),
            [
                "Via: SIP/2.0/UDP 192.0.2.25;branch=z9hG4bKkdjuw", "CSeq: 5 INVITE", "Call-ID: multi01.98asdh@192.0.2.1",
                "From: sip:caller@example.com;tag=3413415", "To: <sip:user@example.com>;tag=uas1", "Content-Length: 0",
            ])
    }

    func testMalformedInputThatCannotBeAnswered() {
        let error = SIPParseError(.invalidHeaderLine, "x")
        let cases: [String] = [
            "",
            "garbage without line end",
            "SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP a.example.com\r\nFrom: <sip:a@b>;tag=1\r\nTo: <sip:a@b>\r\nCall-ID: x\r\nCSeq: 1 INVITE\r\n\r\n",
            "ACK sip:a@b SIP/2.0\r\nVia: SIP/2.0/UDP a.example.com\r\nFrom: <sip:a@b>;tag=1\r\nTo: <sip:a@b>\r\nCall-ID: x\r\nCSeq: 1 ACK\r\n\r\n",
            "INVITE sip:a@b SIP/2.0\r\nVia: SIP/2.0/UDP a.example.com\r\nFrom: <sip:a@b>;tag=1\r\nCall-ID: x\r\nCSeq: 1 INVITE\r\n\r\n",
            "INVITE sip:a@b SIP/2.0\r\nVia: SIP/2.0/UDP a.example.com\r\nFrom: <sip:a@b>;tag=1\r\nTo: <sip:a@b>\r\nCall-ID: x\r\nCSeq: 1 ACK\r\n\r\n",
            "INVITE sip:a@b SIP/2.0\r\nVia: garbage\r\nFrom: <sip:a@b>;tag=1\r\nTo: <sip:a@b>\r\nCall-ID: x\r\nCSeq: 1 INVITE\r\n\r\n",
            "<<>> sip:a@b SIP/2.0\r\nVia: SIP/2.0/UDP a.example.com\r\nFrom: <sip:a@b>;tag=1\r\nTo: <sip:a@b>\r\nCall-ID: x\r\nCSeq: 1 INVITE\r\n\r\n",
        ]
        for text in cases {
            XCTAssertNil(responder.answer(malformed: Array(text.utf8), error: error, toTag: "t"), text)
        }
        // Size limits: too large, too many header lines.
        XCTAssertNil(responder.answer(malformed: [UInt8](repeating: 0x41, count: 70_000), error: error, toTag: "t"))
        let many =
            "INVITE sip:a@b SIP/2.0\r\n" + String(repeating: "X-A: 1\r\n", count: 300)
            + "Via: SIP/2.0/UDP a.example.com\r\nFrom: <sip:a@b>;tag=1\r\nTo: <sip:a@b>\r\nCall-ID: x\r\nCSeq: 1 INVITE\r\n\r\n"
        XCTAssertNil(responder.answer(malformed: Array(many.utf8), error: error, toTag: "t"))
    }

    func testMalformedSalvageSurvivesBrokenLinesAndFolding() throws {
        let text =
            "INVITE sip:a@b SIP/2.0\r\n: no name\r\n continuation first\r\nVia: SIP/2.0/UDP a.example.com\r\n ;branch=z9hG4bKx\r\n"
            + "From: <sip:a@b>;tag=1\r\nTo: <sip:a@b>\r\nCall-ID: x\r\nCSeq: 1 INVITE\r\nContact: <<<\r\n\r\n"
        let answer = try XCTUnwrap(
            responder.answer(malformed: Array(text.utf8), error: SIPParseError(.invalidHeaderValue, "Contact"), toTag: "t"))
        XCTAssertEqual(answer.headers["Via"], ["SIP/2.0/UDP a.example.com ;branch=z9hG4bKx"])
        XCTAssertEqual(answer.headers["To"], ["<sip:a@b>;tag=t"])
        XCTAssertFalse(answer.headers.contains("Contact"))
    }

    func testSeededGarbageNeverTraps() {
        var rng = SeededGenerator(seed: 99)
        let base = Array(
            "INVITE sip:a@b SIP/2.0\r\nVia: SIP/2.0/UDP a.example.com;branch=z9hG4bKx\r\nFrom: <sip:a@b>;tag=1\r\nTo: <sip:a@b>\r\nCall-ID: x\r\nCSeq: 1 INVITE\r\n\r\n"
                .utf8)
        for _ in 0..<2000 {
            var bytes = base
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[i] = UInt8.random(in: 0...255, using: &rng)
            }
            _ = responder.answer(malformed: bytes, error: SIPParseError(.invalidHeaderValue, "x"), toTag: "t")
        }
    }
}
