import XCTest

import VoiceCore

/// The STUN server setting: every accepted form with the default port, and malformed input
/// refused with 31100 and a reason. Public API only.
final class STUNServerAddressTests: XCTestCase {
    func testAcceptedForms() throws {
        let cases: [(input: String, host: String, port: Int, description: String)] = [
            ("stun.example.com", "stun.example.com", 3478, "stun.example.com:3478"),
            ("stun.example.com:19302", "stun.example.com", 19_302, "stun.example.com:19302"),
            ("192.0.2.7:3478", "192.0.2.7", 3478, "192.0.2.7:3478"),
            ("192.0.2.7", "192.0.2.7", 3478, "192.0.2.7:3478"),
            ("[2001:db8::7]:3479", "2001:db8::7", 3479, "[2001:db8::7]:3479"),
            ("2001:db8::7", "2001:db8::7", 3478, "[2001:db8::7]:3478"),
            ("stun:stun.example.com:3478", "stun.example.com", 3478, "stun.example.com:3478"),
            ("STUN:stun.example.com", "stun.example.com", 3478, "stun.example.com:3478"),
        ]
        for (input, host, port, description) in cases {
            let address = try STUNServerAddress(input)
            XCTAssertEqual(address.host, host, input)
            XCTAssertEqual(address.port, port, input)
            XCTAssertEqual(address.description, description, input)
            XCTAssertEqual(try STUNServerAddress(address.description), address, "\(input) reads back from its description")
        }
        XCTAssertEqual(STUNServerAddress.defaultPort, 3478)
    }

    func testMalformedInputIsRefusedWithAReason() {
        let cases: [(input: String, reason: String)] = [
            ("", "is empty"),
            ("stun:", "is empty"),
            ("stun.example.com\n", "control characters"),
            ("stun. example.com", "space"),
            ("stun.example.com:0", "bad port"),
            ("stun.example.com:65536", "bad port"),
            ("stun.example.com:port", "bad port"),
            ("[2001:db8::7]:70000", "bad port"),
            ("sip:stun.example.com", "is not host, host:port or a stun: URI"),
            ("turn:turn.example.com", "is not host, host:port or a stun: URI"),
            ("stuns:stun.example.com", "is not host, host:port or a stun: URI"),
            ("udp://stun.example.com:3478", "is not host, host:port or a stun: URI"),
            ("stun.example.com;transport=udp", "parameters"),
            ("user@stun.example.com", "user part"),
            ("stun.example.com?x=y", "URI headers"),
            ("[2001:db8::7", "is not host"),
            ("*", "is not host"),
        ]
        for (input, reason) in cases {
            XCTAssertThrowsError(try STUNServerAddress(input), input.debugDescription) { error in
                guard let error = error as? VoiceError else { return XCTFail("\(error) is not a VoiceError") }
                XCTAssertEqual(error.code, .malformedRequest, input.debugDescription)
                let text = error.failureReason ?? ""
                XCTAssertTrue(text.contains(reason), "\(input.debugDescription): \(text)")
                XCTAssertTrue(text.hasPrefix("STUN server"), text)
            }
        }
    }
}
