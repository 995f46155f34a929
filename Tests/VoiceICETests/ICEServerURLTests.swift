import XCTest

@testable import VoiceICE

/// `stun:`/`turn:` URLs as WebRTC's `iceServers` and Twilio's ICE servers write them.
final class ICEServerURLTests: XCTestCase {
    func testTheFormsInUse() throws {
        let stun = try ICEServerURL(parsing: "stun:stun.l.google.com:19302")
        XCTAssertEqual(stun.scheme, .stun)
        XCTAssertEqual(stun.host, "stun.l.google.com")
        XCTAssertEqual(stun.port, 19_302)
        XCTAssertEqual(stun.transport, .udp)
        XCTAssertFalse(stun.isTURN)

        let turn = try ICEServerURL(parsing: "turn:global.turn.twilio.com:3478?transport=tcp")
        XCTAssertTrue(turn.isTURN)
        XCTAssertEqual(turn.transport, .tcp)
        XCTAssertFalse(turn.usesTLS)
        XCTAssertEqual(turn.description, "turn:global.turn.twilio.com:3478?transport=tcp")

        let turns = try ICEServerURL(parsing: "TURNS:turn.example.com")
        XCTAssertEqual(turns.port, 5349, "the default TLS port")
        XCTAssertEqual(turns.transport, .tcp)
        XCTAssertTrue(turns.usesTLS)

        XCTAssertEqual(try ICEServerURL(parsing: "turn:192.0.2.1").port, 3478)
        XCTAssertEqual(try ICEServerURL(parsing: "turn:192.0.2.1").transport, .udp)
        let v6 = try ICEServerURL(parsing: "stun:[2001:db8::1]:3479")
        XCTAssertEqual(v6.host, "2001:db8::1")
        XCTAssertEqual(v6.port, 3479)
        XCTAssertEqual(v6.description, "stun:[2001:db8::1]:3479")
    }

    func testWhatIsRefusedSaysWhy() {
        let cases: [(String, ICEServerURL.ParseError)] = [
            ("http://example.com", .unknownScheme), ("stun.example.com", .unknownScheme), ("", .unknownScheme),
            ("stun:", .badHost), ("stun::3478", .badHost), ("turn:exa mple.com", .badHost), ("stun:[2001:db8::1", .badHost),
            ("stun:[]:3478", .badHost), ("turn:host/path", .badHost),
            ("stun:example.com:0", .badPort), ("stun:example.com:65536", .badPort), ("stun:example.com:", .badPort),
            ("stun:example.com:+80", .badPort), ("turn:example.com:34a8", .badPort),
            ("stun:example.com?transport=tcp", .badTransport), ("turn:example.com?transport=sctp", .badTransport),
            ("turns:example.com?transport=udp", .badTransport), ("turn:example.com?foo=bar", .badTransport),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try ICEServerURL(parsing: text), text) { XCTAssertEqual($0 as? ICEServerURL.ParseError, expected, text) }
        }
    }
}
