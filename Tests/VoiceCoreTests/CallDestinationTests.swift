import VoiceSIPAgent
import VoiceSIP
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

final class CallDestinationTests: XCTestCase {
    func testParsesEachCallType() throws {
        let rows: [(String, CallDestination, String)] = [
            ("bob", .user("bob"), "sip:bob@example.com"),
            ("client:bob", .user("bob"), "sip:bob@example.com"),
            ("Client:alice.smith_2", .user("alice.smith_2"), "sip:alice.smith_2@example.com"),
            ("4155550101", .user("4155550101"), "sip:4155550101@example.com"),
            ("+14155550101", .phoneNumber("+14155550101"), "sip:+14155550101@example.com;user=phone"),
            ("tel:+46000000000", .phoneNumber("+46000000000"), "sip:+46000000000@example.com;user=phone"),
            ("+6834001", .phoneNumber("+6834001"), "sip:+6834001@example.com;user=phone"),
            ("conference:room", .conference("room"), "sip:room@example.com;conference"),
            ("conference:" + String(repeating: "r", count: 64), .conference(String(repeating: "r", count: 64)),
             "sip:\(String(repeating: "r", count: 64))@example.com;conference"),
        ]
        for (text, expected, uri) in rows {
            let destination = try CallDestination(parsing: text)
            XCTAssertEqual(destination, expected, text)
            XCTAssertEqual(destination.requestURI(domain: "example.com").description, uri, text)
        }
    }

    func testSIPAddresses() throws {
        let rows: [(String, String)] = [
            ("alice@sip.example.com", "sip:alice@sip.example.com"),
            ("sip:alice@sip.example.com", "sip:alice@sip.example.com"),
            ("sips:alice@sip.example.com:5061", "sips:alice@sip.example.com:5061"),
            ("SIP:alice@sip.example.com;transport=tcp", "sip:alice@sip.example.com;transport=tcp"),
            ("sip:+14155550101@gw.example.com;user=phone", "sip:+14155550101@gw.example.com;user=phone"),
        ]
        for (text, uri) in rows {
            let destination = try CallDestination(parsing: text)
            guard case .sipAddress(let parsed) = destination else { return XCTFail("\(text) → \(destination)") }
            XCTAssertEqual(parsed, uri, text)
            XCTAssertEqual(destination.requestURI(domain: "other.example").description, uri, text)
        }
    }

    func testMalformedDestinationsAreTypedErrors() {
        let rows: [(String, String)] = [
            ("", "empty"),
            ("client:", "empty user"),
            ("bob smith", "space in user"),
            ("bob;x=1", "semicolon in user"),
            ("bob:", "unknown scheme"),
            ("http://example.com", "other scheme"),
            (String(repeating: "u", count: 122), "user too long"),
            ("+", "no digits"),
            ("+0123", "country code 0"),
            ("+1415555O101", "letter in number"),
            ("+1 415 555 0101", "spaces in number"),
            ("+1234567890123456", "16 digits"),
            ("+1", "one digit"),
            ("+683123", "six digits: shorter than any numbering plan"),
            ("tel:+44", "too short after tel:"),
            ("sip:evil%0d%0aFAKE@example.com", "line break in the user"),
            ("sip:bob@example.com;x=%1b%5b31m", "escape sequence in a parameter"),
            ("tel:14155550101", "tel without +"),
            ("conference:", "empty conference"),
            ("conference:" + String(repeating: "r", count: 65), "conference id 65"),
            ("conference:room/1", "slash in conference id"),
            ("conference:room 1", "space in conference id"),
            ("@sip.example.com", "no user"),
            ("sip:sip.example.com", "no user in URI"),
            ("sip:alice@", "no host"),
            ("alice@sip.example.com?Subject=hi", "URI headers"),
            ("sip:alice@[::1", "broken IPv6"),
            (String(repeating: "a", count: 500) + "@" + String(repeating: "b", count: 20), "too long"),
        ]
        for (text, label) in rows {
            XCTAssertThrowsError(try CallDestination(parsing: text), label) { error in
                XCTAssertEqual((error as? VoiceError)?.code, .malformedRequest, label)
                XCTAssertFalse(((error as? VoiceError)?.failureReason ?? "").isEmpty, label)
            }
        }
    }

    func testDescriptionIsAToParameter() throws {
        for text in ["bob", "+14155550101", "sip:alice@sip.example.com", "conference:room"] {
            XCTAssertEqual(try CallDestination(parsing: text).description, text)
        }
    }

    func testRequestURIRoundTrip() throws {
        for text in ["bob", "+14155550101", "conference:room", "sip:alice@sip.example.com"] {
            let destination = try CallDestination(parsing: text)
            let uri = destination.requestURI(domain: "example.com")
            XCTAssertEqual(CallDestination(requestURI: uri, domain: "EXAMPLE.com"), destination, text)
        }
        let foreign = try SIPURI(parsing: "sip:carol@elsewhere.example")
        XCTAssertEqual(CallDestination(requestURI: foreign, domain: "example.com"), .sipAddress("sip:carol@elsewhere.example"))
        let tel = try SIPURI(parsing: "tel:+14155550101")
        XCTAssertEqual(CallDestination(requestURI: tel, domain: nil), .phoneNumber("+14155550101"))
    }

    func testRandomInputNeverCrashes() {
        for text in Self.randomInputs(count: 3000, alphabet: "sip:+1@.;=?<>[]%client-conference bé", seed: 2) {
            do {
                _ = try CallDestination(parsing: text)
            } catch {
                XCTAssertEqual(error.code, .malformedRequest, text)
            }
        }
    }

    /// Deterministic pseudo-random strings over an alphabet that favours the parser's delimiters.
    private static func randomInputs(count: Int, alphabet: String, seed: UInt64) -> [String] {
        var state = seed
        let characters = Array(alphabet)
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let length = Int(state >> 58)
            return String((0..<length).map { _ in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return characters[Int(state >> 33) % characters.count]
            })
        }
    }
}

/// Each conference addressing form's request, and the forms that cannot make one.
final class ConferenceAddressingTests: XCTestCase {
    func testEachFormAddressesTheRoomAsItsTableSays() throws {
        let room = try CallDestination(parsing: "conference:standup")
        func request(_ form: ConferenceAddressing) -> String {
            let (uri, headers) = room.request(domain: "example.com", conference: form)
            return ([uri.description] + headers.map { "\($0.0): \($0.1)" }).joined(separator: " ")
        }
        XCTAssertEqual(request(.uriParameter), "sip:standup@example.com;conference")
        XCTAssertEqual(request(.userPrefix("conf-")), "sip:conf-standup@example.com")
        XCTAssertEqual(request(.host("conference.example.com")), "sip:standup@conference.example.com")
        XCTAssertEqual(request(.focus(user: "conference", header: "X-Conference-Id")), "sip:conference@example.com X-Conference-Id: standup")
        let bob = try CallDestination(parsing: "bob")
        XCTAssertEqual(bob.request(domain: "example.com", conference: .userPrefix("conf-")).uri.description, "sip:bob@example.com", "only conferences")
    }

    func testFormsThatCannotMakeARequestAreTypedErrors() {
        for form: ConferenceAddressing in [.userPrefix("conf @"), .host(""), .host("a b"), .focus(user: "", header: "X-Room"), .focus(user: "c", header: "X Room:")] {
            XCTAssertThrowsError(try form.validate(), "\(form)") { XCTAssertEqual(($0 as? VoiceError)?.code, .malformedRequest) }
        }
        XCTAssertNoThrow(try ConferenceAddressing.focus(user: "conference", header: "X-Conference-Id").validate())
    }
}
