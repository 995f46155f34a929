import VoiceCore
import VoiceSIP
import XCTest

@testable import VoiceConference

/// Reading the room from an INVITE in each form `ConferenceAddressing` sends, and the answers
/// for what is not a room.
final class ConferenceRoomLookupTests: XCTestCase {
    private func lookup(_ uri: String, headers: [(String, String)] = [], forms: [ConferenceAddressing]) throws -> ConferenceRoomLookup {
        ConferenceRoomLookup(requestURI: try SIPURI(parsing: uri), headers: SIPHeaders(headers), forms: forms)
    }

    func testEveryFormOfAddressingNamesTheRoom() throws {
        let all: [ConferenceAddressing] = [
            .uriParameter, .userPrefix("conf-"), .host("rooms.example.com"), .focus(user: "bridge", header: "X-Conference-Id"),
        ]
        XCTAssertEqual(try lookup("sip:standup@example.com;conference", forms: all), .room("standup"))
        XCTAssertEqual(try lookup("sip:conf-standup@example.com", forms: all), .room("standup"))
        XCTAssertEqual(try lookup("sip:CONF-standup@example.com", forms: all), .room("standup"), "the prefix without case")
        XCTAssertEqual(try lookup("sip:standup@rooms.example.com", forms: all), .room("standup"))
        XCTAssertEqual(try lookup("sip:bridge@example.com", headers: [("X-Conference-Id", " standup ")], forms: all), .room("standup"))
        // What the SDK's own client sends for `conference:standup`, form by form.
        for form in all {
            let (uri, headers) = CallDestination.conference("standup").request(domain: "example.com", conference: form)
            let found = ConferenceRoomLookup(requestURI: uri, headers: SIPHeaders(headers), forms: [form])
            XCTAssertEqual(found, .room("standup"), "\(form)")
        }
    }

    func testWhatIsNotARoomGetsItsAnswer() throws {
        let long = String(repeating: "a", count: 65)
        XCTAssertEqual(try lookup("sip:\(String(repeating: "a", count: 64))@example.com;conference", forms: [.uriParameter]), .room(String(repeating: "a", count: 64)))
        XCTAssertEqual(try lookup("sip:\(long)@example.com;conference", forms: [.uriParameter]), .refused(statusCode: 414, reason: "Conference Id Longer Than 64 Characters"))
        XCTAssertEqual(
            try lookup("sip:bridge@example.com", headers: [("X-Conference-Id", long)], forms: [.focus(user: "bridge", header: "X-Conference-Id")]),
            .refused(statusCode: 400, reason: "Conference Id Longer Than 64 Characters"))
        XCTAssertEqual(try lookup("sip:stand%20up@example.com;conference", forms: [.uriParameter]), .refused(statusCode: 404, reason: "Invalid Conference Id"))
        XCTAssertEqual(try lookup("sip:example.com;conference", forms: [.uriParameter]), .refused(statusCode: 404, reason: "Invalid Conference Id"), "no user")
        XCTAssertEqual(try lookup("sip:conf-@example.com", forms: [.userPrefix("conf-")]), .refused(statusCode: 404, reason: "Not A Conference"), "a bare prefix")
        XCTAssertEqual(try lookup("sip:bob@example.com", forms: [.uriParameter, .userPrefix("conf-")]), .refused(statusCode: 404, reason: "Not A Conference"))
        XCTAssertEqual(
            try lookup("sip:bridge@example.com", forms: [.focus(user: "bridge", header: "X-Conference-Id")]),
            .refused(statusCode: 404, reason: "Not A Conference"), "the focus without its header")
    }
}
