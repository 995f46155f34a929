import XCTest

@testable import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

/// RFC 3261 §12 dialogs, checked against the RFC 3665 §3.2 flow (session through two
/// record-routing proxies): Alice at client.atlanta.example.com, Bob at client.biloxi.example.com.
final class SIPDialogTests: XCTestCase {
    static func parse(_ lines: [String], body: String = "") throws -> SIPMessage {
        var text = lines.joined(separator: "\r\n") + "\r\n"
        text += "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        return try SIPMessageParser().parse(datagram: Array(text.utf8))
    }

    static func request(_ lines: [String], body: String = "") throws -> SIPRequest {
        guard case .request(let r) = try parse(lines, body: body) else { return try XCTUnwrap(nil as SIPRequest?, "not a request") }
        return r
    }

    static func response(_ lines: [String], body: String = "") throws -> SIPResponse {
        guard case .response(let r) = try parse(lines, body: body) else { return try XCTUnwrap(nil as SIPResponse?, "not a response") }
        return r
    }

    /// Compares two requests field by field; address fields by value, since serialization quotes
    /// display names that the RFC text leaves bare.
    static func assertSameRequest(_ actual: SIPRequest, _ expected: SIPRequest, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(actual.method, expected.method, file: file, line: line)
        XCTAssertEqual(actual.uri, expected.uri, file: file, line: line)
        XCTAssertEqual(actual.body, expected.body, file: file, line: line)
        XCTAssertEqual(actual.headers.count, expected.headers.count, "header count", file: file, line: line)
        for (a, e) in zip(actual.headers, expected.headers) {
            XCTAssertEqual(SIPHeaders.canonicalName(a.name), SIPHeaders.canonicalName(e.name), file: file, line: line)
            switch SIPHeaders.canonicalName(e.name) {
            case "from", "to", "route", "contact":
                XCTAssertEqual(try? SIPNameAddress(parsing: a.value), try? SIPNameAddress(parsing: e.value), e.name, file: file, line: line)
            default:
                XCTAssertEqual(a.value, e.value, e.name, file: file, line: line)
            }
        }
    }

    /// RFC 3665 §3.2 F4: Alice's INVITE with credentials (CSeq 2), as sent by Alice.
    static func aliceInvite() throws -> SIPRequest {
        try request([
            "INVITE sip:bob@biloxi.example.com SIP/2.0",
            "Via: SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74bf9",
            "Max-Forwards: 70",
            "Route: <sip:ss1.atlanta.example.com;lr>",
            "From: Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl",
            "To: Bob <sip:bob@biloxi.example.com>",
            "Call-ID: 3848276298220188511@atlanta.example.com",
            "CSeq: 2 INVITE",
            "Contact: <sip:alice@client.atlanta.example.com;transport=tcp>",
        ])
    }

    /// RFC 3665 §3.2 F6: the same INVITE as Bob receives it, record-routed by both proxies.
    static func bobInvite() throws -> SIPRequest {
        try request([
            "INVITE sip:bob@client.biloxi.example.com SIP/2.0",
            "Via: SIP/2.0/TCP ss2.biloxi.example.com:5060;branch=z9hG4bK721e4.1",
            "Via: SIP/2.0/TCP ss1.atlanta.example.com:5060;branch=z9hG4bK2d4790.1;received=192.0.2.111",
            "Via: SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74bf9;received=192.0.2.101",
            "Max-Forwards: 68",
            "Record-Route: <sip:ss2.biloxi.example.com;lr>",
            "Record-Route: <sip:ss1.atlanta.example.com;lr>",
            "From: Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl",
            "To: Bob <sip:bob@biloxi.example.com>",
            "Call-ID: 3848276298220188511@atlanta.example.com",
            "CSeq: 2 INVITE",
            "Contact: <sip:alice@client.atlanta.example.com;transport=tcp>",
        ])
    }

    /// RFC 3665 §3.2 F11/F13: Bob's 200 OK as Alice receives it.
    static func okAtAlice(
        recordRoute: String = "<sip:ss2.biloxi.example.com;lr>, <sip:ss1.atlanta.example.com;lr>"
    )
        throws -> SIPResponse
    {
        try response([
            "SIP/2.0 200 OK",
            "Via: SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74bf9;received=192.0.2.101",
            "Record-Route: \(recordRoute)",
            "From: Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl",
            "To: Bob <sip:bob@biloxi.example.com>;tag=314159",
            "Call-ID: 3848276298220188511@atlanta.example.com",
            "CSeq: 2 INVITE",
            "Contact: <sip:bob@client.biloxi.example.com;transport=tcp>",
        ])
    }

    func testUACDialogFromRecordRoutedOK() throws {
        let dialog = try SIPDialog(request: Self.aliceInvite(), response: Self.okAtAlice())
        XCTAssertEqual(
            dialog.id,
            SIPDialogID(callID: "3848276298220188511@atlanta.example.com", localTag: "9fxced76sl", remoteTag: "314159"))
        XCTAssertEqual(dialog.state, .confirmed)
        XCTAssertEqual(dialog.localSequence, 2)
        XCTAssertNil(dialog.remoteSequence)
        XCTAssertEqual(dialog.remoteTarget.description, "sip:bob@client.biloxi.example.com;transport=tcp")
        // §12.1.2: Record-Route reversed.
        XCTAssertEqual(
            dialog.routeSet.map(\.uri.host), ["ss1.atlanta.example.com", "ss2.biloxi.example.com"])
        XCTAssertFalse(dialog.isSecure)
    }

    /// RFC 3665 §3.2 F15: Alice's ACK.
    func testACKMatchesRFC3665F15() throws {
        let dialog = try SIPDialog(request: Self.aliceInvite(), response: Self.okAtAlice())
        let ack = dialog.makeACK(
            forInviteCSeq: 2,
            via: try SIPVia(parsing: "SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74b76"))
        let expected = try Self.request([
            "ACK sip:bob@client.biloxi.example.com;transport=tcp SIP/2.0",
            "Via: SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74b76",
            "Max-Forwards: 70",
            "Route: <sip:ss1.atlanta.example.com;lr>",
            "Route: <sip:ss2.biloxi.example.com;lr>",
            "From: Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl",
            "To: Bob <sip:bob@biloxi.example.com>;tag=314159",
            "Call-ID: 3848276298220188511@atlanta.example.com",
            "CSeq: 2 ACK",
        ])
        Self.assertSameRequest(ack, expected)
        XCTAssertEqual(dialog.localSequence, 2, "the ACK does not use a new CSeq")
    }

    func testUASDialogFromRecordRoutedInvite() throws {
        var dialog = try SIPDialog(request: Self.bobInvite(), localTag: "314159")
        XCTAssertEqual(dialog.state, .early)
        dialog.confirm()
        XCTAssertEqual(dialog.state, .confirmed)
        XCTAssertEqual(dialog.id.localTag, "314159")
        XCTAssertEqual(dialog.id.remoteTag, "9fxced76sl")
        XCTAssertEqual(dialog.remoteSequence, 2)
        XCTAssertNil(dialog.localSequence)
        // §12.1.1: Record-Route in order.
        XCTAssertEqual(dialog.routeSet.map(\.uri.host), ["ss2.biloxi.example.com", "ss1.atlanta.example.com"])
        XCTAssertEqual(dialog.localAddress.tag, "314159")
        XCTAssertEqual(dialog.localAddress.displayName, "Bob")
    }

    /// RFC 3665 §3.2 F17: Bob's BYE.
    func testBobsBYEMatchesRFC3665() throws {
        var dialog = try SIPDialog(request: Self.bobInvite(), localTag: "314159")
        dialog.confirm()
        let bye = dialog.makeRequest(
            method: .bye, via: try SIPVia(parsing: "SIP/2.0/TCP client.biloxi.example.com:5060;branch=z9hG4bKnashds7"))
        let expected = try Self.request([
            "BYE sip:alice@client.atlanta.example.com;transport=tcp SIP/2.0",
            "Via: SIP/2.0/TCP client.biloxi.example.com:5060;branch=z9hG4bKnashds7",
            "Max-Forwards: 70",
            "Route: <sip:ss2.biloxi.example.com;lr>",
            "Route: <sip:ss1.atlanta.example.com;lr>",
            "From: Bob <sip:bob@biloxi.example.com>;tag=314159",
            "To: Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl",
            "Call-ID: 3848276298220188511@atlanta.example.com",
            "CSeq: 1 BYE",
        ])
        Self.assertSameRequest(bye, expected)
        XCTAssertEqual(dialog.localSequence, 1)
        let info = dialog.makeRequest(
            method: .info, via: SIPVia(transport: "TCP", host: "client.biloxi.example.com", branch: "z9hG4bKx"),
            headers: [("Allow", "INVITE")], body: Array("{}".utf8), contentType: "application/json")
        XCTAssertEqual(try info.headers.cseq(), SIPCSeq(sequence: 2, method: .info))
        XCTAssertEqual(info.headers.first("content-type"), "application/json")
        XCTAssertEqual(info.headers.first("content-length"), "2")
        XCTAssertEqual(info.headers.first("allow"), "INVITE")
    }

    func testStrictRouteRewritesRequestURI() throws {
        let ok = try Self.okAtAlice(recordRoute: "<sip:p2.example.com>, <sip:p1.example.com;method=INVITE>")
        var dialog = try SIPDialog(request: Self.aliceInvite(), response: ok)
        // Route set [p1 (strict), p2]: the first route becomes the Request-URI without `method`.
        let bye = dialog.makeRequest(method: .bye, via: SIPVia(transport: "TCP", host: "a.example.com", branch: "z9hG4bK1"))
        XCTAssertEqual(bye.uri.description, "sip:p1.example.com")
        XCTAssertEqual(
            try bye.headers.route().map(\.uri.description),
            ["sip:p2.example.com", "sip:bob@client.biloxi.example.com;transport=tcp"])
        XCTAssertEqual(try bye.headers.cseq().sequence, 3)
    }

    func testNoRouteSetTargetsContact() throws {
        let ok = try Self.response([
            "SIP/2.0 200 OK",
            "Via: SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74bf9",
            "From: Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl",
            "To: Bob <sip:bob@biloxi.example.com>;tag=314159",
            "Call-ID: 3848276298220188511@atlanta.example.com",
            "CSeq: 2 INVITE",
            "Contact: <sip:bob@192.0.2.4>",
        ])
        var dialog = try SIPDialog(request: Self.aliceInvite(), response: ok)
        let bye = dialog.makeRequest(method: .bye, via: SIPVia(transport: "TCP", host: "a.example.com", branch: "z9hG4bK1"))
        XCTAssertEqual(bye.uri.description, "sip:bob@192.0.2.4")
        XCTAssertTrue(bye.headers["route"].isEmpty)
    }

    func testEarlyDialogConfirmedByOKRecomputesRouteSet() throws {
        let ringing = try Self.response([
            "SIP/2.0 180 Ringing",
            "Via: SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74bf9",
            "Record-Route: <sip:ss2.biloxi.example.com;lr>",
            "From: Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl",
            "To: Bob <sip:bob@biloxi.example.com>;tag=314159",
            "Call-ID: 3848276298220188511@atlanta.example.com",
            "CSeq: 2 INVITE",
            "Contact: <sip:bob@early.example.com>",
        ])
        var dialog = try SIPDialog(request: Self.aliceInvite(), response: ringing)
        XCTAssertEqual(dialog.state, .early)
        XCTAssertEqual(dialog.routeSet.count, 1)
        dialog.receiveResponse(try Self.okAtAlice(), method: .invite)
        XCTAssertEqual(dialog.state, .confirmed)
        XCTAssertEqual(dialog.routeSet.map(\.uri.host), ["ss1.atlanta.example.com", "ss2.biloxi.example.com"])
        XCTAssertEqual(dialog.remoteTarget.host, "client.biloxi.example.com")
    }

    private func inDialog(
        _ method: String, cseq: Int, contact: String? = nil, fromTag: String = "9fxced76sl"
    ) throws
        -> SIPRequest
    {
        var lines = [
            "\(method) sip:bob@client.biloxi.example.com SIP/2.0",
            "Via: SIP/2.0/TCP ss2.biloxi.example.com:5060;branch=z9hG4bKq\(cseq)",
            "From: Alice <sip:alice@atlanta.example.com>;tag=\(fromTag)",
            "To: Bob <sip:bob@biloxi.example.com>;tag=314159",
            "Call-ID: 3848276298220188511@atlanta.example.com",
            "CSeq: \(cseq) \(method)",
        ]
        if let contact { lines.append("Contact: \(contact)") }
        return try Self.request(lines)
    }

    func testRemoteCSeqOrderingAndTargetRefresh() throws {
        var dialog = try SIPDialog(request: Self.bobInvite(), localTag: "314159")
        dialog.confirm()
        XCTAssertNoThrow(try dialog.receiveRequest(inDialog("INFO", cseq: 3)))
        XCTAssertEqual(dialog.remoteSequence, 3)
        // §12.2.2: lower than the last → 500.
        XCTAssertThrowsError(try dialog.receiveRequest(inDialog("INFO", cseq: 1))) { error in
            XCTAssertEqual(error as? SIPDialogError, .outOfOrder)
            XCTAssertEqual((error as? SIPDialogError)?.statusCode, 500)
        }
        // ACK and CANCEL carry their INVITE's number and are not checked.
        XCTAssertNoThrow(try dialog.receiveRequest(inDialog("ACK", cseq: 2)))
        XCTAssertEqual(dialog.remoteSequence, 3)
        // A re-INVITE refreshes the target.
        XCTAssertNoThrow(try dialog.receiveRequest(inDialog("INVITE", cseq: 4, contact: "<sip:alice@192.0.2.200>")))
        XCTAssertEqual(dialog.remoteTarget.description, "sip:alice@192.0.2.200")
        // INFO with a Contact is no target refresh.
        XCTAssertNoThrow(try dialog.receiveRequest(inDialog("INFO", cseq: 5, contact: "<sip:alice@192.0.2.201>")))
        XCTAssertEqual(dialog.remoteTarget.description, "sip:alice@192.0.2.200")
        // Another dialog's tag → 481.
        XCTAssertThrowsError(try dialog.receiveRequest(inDialog("BYE", cseq: 6, fromTag: "other"))) { error in
            XCTAssertEqual((error as? SIPDialogError)?.statusCode, 481)
        }
    }

    func testMalformedInputsThrowTypedErrors() throws {
        // A 2xx without a To tag cannot make a dialog.
        let untagged = try Self.response([
            "SIP/2.0 200 OK",
            "Via: SIP/2.0/TCP client.atlanta.example.com:5060;branch=z9hG4bK74bf9",
            "From: Alice <sip:alice@atlanta.example.com>;tag=9fxced76sl",
            "To: Bob <sip:bob@biloxi.example.com>",
            "Call-ID: 3848276298220188511@atlanta.example.com",
            "CSeq: 2 INVITE",
        ])
        XCTAssertThrowsError(try SIPDialog(request: Self.aliceInvite(), response: untagged)) { error in
            XCTAssertEqual(error as? SIPDialogError, .missingTag)
        }
        // An INVITE without Contact → 400.
        var noContact = try Self.bobInvite()
        noContact.headers.remove("contact")
        XCTAssertThrowsError(try SIPDialog(request: noContact, localTag: "t")) { error in
            XCTAssertEqual(error as? SIPDialogError, .missingContact)
            XCTAssertEqual((error as? SIPDialogError)?.statusCode, 400)
        }
        // Malformed Record-Route, CSeq, From without tag.
        for (name, value) in [("Record-Route", "sip:no-brackets.example.com"), ("CSeq", "x INVITE"), ("From", "<sip:a@b>")] {
            var bad = try Self.bobInvite()
            bad.headers.set(name, value)
            XCTAssertThrowsError(try SIPDialog(request: bad, localTag: "t"), name) { error in
                XCTAssertEqual(error as? SIPDialogError, .malformedMessage, name)
            }
        }
        var star = try Self.bobInvite()
        star.headers.set("Contact", "*")
        XCTAssertThrowsError(try SIPDialog(request: star, localTag: "t"))
    }

    func testDialogIDFromReceivedMessages() throws {
        let ok = try Self.okAtAlice()
        XCTAssertEqual(
            SIPDialogID(receivedResponse: ok),
            SIPDialogID(callID: "3848276298220188511@atlanta.example.com", localTag: "9fxced76sl", remoteTag: "314159"))
        let bye = try inDialog("BYE", cseq: 3)
        XCTAssertEqual(
            SIPDialogID(receivedRequest: bye),
            SIPDialogID(callID: "3848276298220188511@atlanta.example.com", localTag: "314159", remoteTag: "9fxced76sl"))
        XCTAssertNil(SIPDialogID(receivedRequest: try Self.bobInvite()), "no To tag: out of dialog")
        var untagged = ok
        untagged.headers.set("To", "<sip:bob@biloxi.example.com>")
        XCTAssertNil(SIPDialogID(receivedResponse: untagged))
        var noCallID = bye
        noCallID.headers.remove("call-id")
        XCTAssertNil(SIPDialogID(receivedRequest: noCallID))
    }
}
