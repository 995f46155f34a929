import XCTest
@testable import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

final class SIPURITests: XCTestCase {
    func testParsesComponents() throws {
        let u = try SIPURI(parsing: "sips:alice:secret@Example.COM:5061;transport=tcp;lr?subject=hi%20there&x=1")
        XCTAssertEqual(u.scheme, .sips)
        XCTAssertEqual(u.user, "alice")
        XCTAssertEqual(u.password, "secret")
        XCTAssertEqual(u.host, "Example.COM")
        XCTAssertEqual(u.port, 5061)
        XCTAssertEqual(u.transport, "tcp")
        XCTAssertTrue(u.isLooseRouting)
        XCTAssertEqual(u.headers, [.init(name: "subject", value: "hi there"), .init(name: "x", value: "1")])
        XCTAssertEqual(try SIPURI(parsing: u.description), u)
    }

    func testIPv6ReferencesPerRFC5118() throws {
        let u = try SIPURI(parsing: "sip:[2001:db8::10]:5070")
        XCTAssertEqual(u.host, "2001:db8::10")
        XCTAssertEqual(u.port, 5070)
        XCTAssertEqual(u.description, "sip:[2001:db8::10]:5070")
        XCTAssertTrue(try SIPURI(parsing: "sip:[2001:db8:0:0:0:0:0:10]:5070").isEquivalent(to: u))
        XCTAssertNotNil(try? SIPURI(parsing: "sip:user@[::ffff:192.0.2.1]"))
        // A host given as a URI writes it (`--domain [2001:db8::10]`) is bracketed once, not twice.
        let built = SIPURI(user: "bob", host: "[2001:db8::10]")
        XCTAssertEqual(built.host, "2001:db8::10")
        XCTAssertEqual(built.description, "sip:bob@[2001:db8::10]")
        for bad in ["sip:user@[2001:db8::10", "sip:[2001:db8:::10]", "sip:[1:2:3:4:5:6:7:8:9]", "sip:2001:db8::10"] {
            XCTAssertThrowsError(try SIPURI(parsing: bad), bad)
        }
    }

    func testComparisonRulesOfRFC3261() throws {
        func eq(_ a: String, _ b: String) throws -> Bool { try SIPURI(parsing: a).isEquivalent(to: SIPURI(parsing: b)) }
        // Equivalent pairs from RFC 3261 §19.1.4.
        XCTAssertTrue(try eq("sip:%61lice@atlanta.com;transport=TCP", "sip:alice@AtLanTa.CoM;Transport=tcp"))
        XCTAssertTrue(try eq("sip:carol@chicago.com", "sip:carol@chicago.com;newparam=5"))
        XCTAssertTrue(try eq("sip:carol@chicago.com;security=on", "sip:carol@chicago.com;newparam=5"))
        XCTAssertTrue(
            try eq(
                "sip:biloxi.com;transport=tcp;method=REGISTER?to=sip:bob%40biloxi.com",
                "sip:biloxi.com;method=REGISTER;transport=tcp?to=sip:bob%40biloxi.com"))
        XCTAssertTrue(
            try eq(
                "sip:alice@atlanta.com?subject=project%20x&priority=urgent",
                "sip:alice@atlanta.com?priority=urgent&subject=project%20x"))
        // Non-equivalent pairs from RFC 3261 §19.1.4.
        XCTAssertFalse(try eq("SIP:ALICE@AtLanTa.CoM;Transport=udp", "sip:alice@AtLanTa.CoM;Transport=UDP"))
        XCTAssertFalse(try eq("sip:bob@biloxi.com", "sip:bob@biloxi.com:5060"))
        XCTAssertFalse(try eq("sip:bob@biloxi.com", "sip:bob@biloxi.com;transport=udp"))
        XCTAssertFalse(try eq("sip:bob@biloxi.com", "sip:bob@biloxi.com:6000;transport=tcp"))
        XCTAssertFalse(try eq("sip:carol@chicago.com", "sip:carol@chicago.com?Subject=next%20meeting"))
        XCTAssertFalse(try eq("sip:bob@phone21.boxesbybob.com", "sip:bob@192.0.2.4"))
        XCTAssertFalse(try eq("sip:carol@chicago.com;security=on", "sip:carol@chicago.com;security=off"))
        XCTAssertFalse(try eq("sip:alice@example.com", "sips:alice@example.com"))
    }

    func testTelAndOpaqueURIs() throws {
        let t = try SIPURI(parsing: "tel:+1-201-555-0123;phone-context=example.com")
        XCTAssertEqual(t.scheme, .tel)
        XCTAssertEqual(t.user, "+1-201-555-0123")
        XCTAssertTrue(t.isEquivalent(to: try SIPURI(parsing: "tel:+12015550123;phone-context=example.com")))
        let o = try SIPURI(parsing: "soap.beep://192.0.2.103:3002")
        XCTAssertEqual(o.scheme, .other("soap.beep"))
        XCTAssertEqual(o.description, "soap.beep://192.0.2.103:3002")
    }

    func testEscapesRoundTrip() throws {
        let u = SIPURI(user: "I have spaces;and%", host: "example.net")
        XCTAssertEqual(u.description, "sip:I%20have%20spaces;and%25@example.net")
        XCTAssertEqual(try SIPURI(parsing: u.description), u)
    }

    /// Found by fuzzing: `%D0` alone decoded to U+FFFD, so a 3.9 KB tel URI came back 4.2 KB
    /// long (past the 4096-byte limit) with its parameter changed. Escapes must decode to UTF-8.
    func testEscapesThatAreNotUTF8AreRefusedAndUTF8OnesRoundTrip() throws {
        for bad in ["tel:+1;p=%d0", "sip:%ff@example.net", "sip:a@example.net;x=%C3", "sip:a@example.net?h=%80"] {
            XCTAssertThrowsError(try SIPURI(parsing: bad), bad) { XCTAssertEqual(($0 as? SIPParseError)?.kind, .invalidURI) }
        }
        let accented = try SIPURI(parsing: "sip:ren%C3%A9e@example.net;x=%E2%82%AC")
        XCTAssertEqual(accented.user, "renée")
        XCTAssertEqual(try SIPURI(parsing: accented.description), accented)
    }

    func testMalformedURIsThrowTypedErrors() {
        for bad in [
            "", "sip:", "sip:user@", "sip:user@host:99999", "sip:user@host:", "sip:us er@host", "sip:a@b;=x",
            "sip:%4@host", "<sip:a@b>", "1sip:a@b", "sip:@host", "sip:a@host;p=", "tel:", "sip:a@b?h",
            "tel:+14%5550101", "tel:+1%0d%0a",  // found by fuzzing: escapes that decode to no phone digit
        ] {
            XCTAssertThrowsError(try SIPURI(parsing: bad), bad) { XCTAssertTrue($0 is SIPParseError) }
        }
        XCTAssertThrowsError(try SIPURI(parsing: "sip:" + String(repeating: "a", count: 5000))) {
            XCTAssertEqual(($0 as? SIPParseError)?.kind, .tooLarge)
        }
    }
}
