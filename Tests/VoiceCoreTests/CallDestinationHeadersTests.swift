import VoiceSIP
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

final class CallDestinationHeadersTests: XCTestCase {
    func testParametersBecomeEncodedXHeaders() throws {
        let headers = try CallCustomHeaders(parameters: ["To": "bob", "customer": "42", "note": "a b&c=d/é+"])
        XCTAssertEqual(headers.fields.map(\.name), ["X-customer", "X-note"])
        XCTAssertEqual(headers.fields.map(\.value), ["42", "a%20b%26c%3Dd%2F%C3%A9%2B"])
    }

    func testParametersAndDirectHeaders() throws {
        let headers = try CallCustomHeaders(parameters: ["a": "1"], headers: ["x-Account": "7", "X-Zone": "eu west"])
        XCTAssertEqual(headers.fields.map(\.name), ["X-a", "X-Zone", "x-Account"])
        XCTAssertEqual(headers.fields.last?.value, "7")
        XCTAssertEqual(headers.fields[1].value, "eu west", "direct header values are sent as given")
        var sip = SIPHeaders([("Call-ID", "c1")])
        headers.apply(to: &sip)
        XCTAssertEqual(sip.first("x-zone"), "eu west")
        XCTAssertEqual(sip.count, 4)
    }

    func testRoundTripToCustomParameters() throws {
        let parameters = ["customer": "42", "caller_first_name": "alice", "note": "50% off, naïve & ☎", "empty": ""]
        let headers = try CallCustomHeaders(parameters: parameters.merging(["To": "bob"]) { a, _ in a })
        var sip = SIPHeaders([("From", "<sip:a@b>"), (CallSid.headerName, "CA0123456789abcdef0123456789abcdef")])
        headers.apply(to: &sip)
        XCTAssertEqual(CallCustomHeaders.customParameters(from: sip), parameters)
    }

    func testCustomParametersFromReceivedHeaders() {
        let sip = SIPHeaders([
            ("X-customer", "42"), ("x-lower", "a%20b"), ("X-Bad", "100%"), ("X-customer", "second"),
            ("X-", "nameless"), ("X-Twilio-CallSid", "CA00"), ("Subject", "hi"), ("X-plus", "+1415"),
        ])
        XCTAssertEqual(
            CallCustomHeaders.customParameters(from: sip),
            ["customer": "42", "lower": "a b", "Bad": "100%", "plus": "+1415"])
    }

    func testHeaderRules() {
        let rows: [([(name: String, value: String)], String)] = [
            ([("Subject", "x")], "no X- prefix"),
            ([("X-", "x")], "prefix only"),
            ([("X-Bad Name", "x")], "space in name"),
            ([("X-Bad:Name", "x")], "colon in name"),
            ([("X-Ok", "line\r\nInjected: 1")], "CRLF in value"),
            ([("X-Ok", "nul\u{0}")], "NUL in value"),
            ([("X-Ok", "1"), ("x-ok", "2")], "duplicate name"),
            ([("X-Twilio-CallSid", "CA1")], "reserved name"),
            ([("X-Big", String(repeating: "v", count: 1020))], "1025 bytes"),
            ([("X-A", String(repeating: "v", count: 600)), ("X-B", String(repeating: "v", count: 600))], "sum over 1024"),
        ]
        for (headers, label) in rows {
            XCTAssertThrowsError(try CallCustomHeaders(headers), label) { error in
                XCTAssertEqual((error as? VoiceError)?.code, .malformedRequest, label)
            }
        }
        XCTAssertNoThrow(try CallCustomHeaders([("X-Big", String(repeating: "v", count: 1019))]), "1024 bytes")
        XCTAssertNoThrow(try CallCustomHeaders([("x-tab", "a\tb")]))
    }

    func testParameterRules() {
        XCTAssertThrowsError(try CallCustomHeaders(parameters: ["bad name": "1"]))
        XCTAssertThrowsError(try CallCustomHeaders(parameters: ["Twilio-CallSid": "1"]))
        XCTAssertThrowsError(try CallCustomHeaders(parameters: ["big": String(repeating: "é", count: 200)]))
        XCTAssertNoThrow(try CallCustomHeaders(parameters: ["To": String(repeating: "é", count: 2000)]))
        XCTAssertEqual(try CallCustomHeaders(parameters: [:]).fields.count, 0)
    }

    func testPercentDecodingVectors() throws {
        XCTAssertEqual(try CallParameterPercentEncoding.decode("a%20b%2Bc+d"), "a b+c+d")
        XCTAssertEqual(try CallParameterPercentEncoding.decode("%e2%98%8e"), "☎")
        let malformed: [(Substring, CallParameterPercentEncoding.Failure)] = [
            ("%", .invalidEscape(offset: 0)), ("a%2", .invalidEscape(offset: 1)), ("%zz", .invalidEscape(offset: 0)),
            ("ab%g1", .invalidEscape(offset: 2)), ("%ff", .invalidUTF8), ("%C3", .invalidUTF8),
        ]
        for (text, expected) in malformed {
            XCTAssertThrowsError(try CallParameterPercentEncoding.decode(text), String(text)) { error in
                XCTAssertEqual(error as? CallParameterPercentEncoding.Failure, expected, String(text))
            }
        }
    }
}
