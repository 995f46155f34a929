import XCTest

import VoiceCore

/// The outbound proxy and registrar settings: every accepted form, and malformed input refused
/// with 31100 and a reason when the configuration is built. Public API only.
final class SIPServerAddressTests: XCTestCase {
    func testAcceptedForms() throws {
        let cases: [(input: String, host: String, port: Int?, description: String, tls: Bool)] = [
            ("proxy.example.com", "proxy.example.com", nil, "sip:proxy.example.com", false),
            ("proxy.example.com:5080", "proxy.example.com", 5080, "sip:proxy.example.com:5080", false),
            ("192.0.2.5", "192.0.2.5", nil, "sip:192.0.2.5", false),
            ("192.0.2.5:1", "192.0.2.5", 1, "sip:192.0.2.5:1", false),
            ("192.0.2.5:65535", "192.0.2.5", 65_535, "sip:192.0.2.5:65535", false),
            ("[2001:db8::5]:5060", "2001:db8::5", 5060, "sip:[2001:db8::5]:5060", false),
            ("[2001:DB8::5]", "2001:db8::5", nil, "sip:[2001:db8::5]", false),
            ("2001:db8::5", "2001:db8::5", nil, "sip:[2001:db8::5]", false),
            ("::1", "::1", nil, "sip:[::1]", false),
            ("proxy.example.com;transport=tcp", "proxy.example.com", nil, "sip:proxy.example.com;transport=tcp", false),
            ("sip:proxy.example.com;transport=tls", "proxy.example.com", nil, "sip:proxy.example.com;transport=tls", true),
            ("sips:proxy.example.com:5061;lr", "proxy.example.com", 5061, "sips:proxy.example.com:5061;lr", true),
            ("SIP:proxy.example.com:5070", "proxy.example.com", 5070, "sip:proxy.example.com:5070", false),
            ("sip:[2001:db8::5]:5062;transport=udp", "2001:db8::5", 5062, "sip:[2001:db8::5]:5062;transport=udp", false),
        ]
        for (input, host, port, description, tls) in cases {
            let address = try SIPServerAddress(input)
            XCTAssertEqual(address.host, host, input)
            XCTAssertEqual(address.port, port, input)
            XCTAssertEqual(address.description, description, input)
            XCTAssertEqual(address.requiresTLS, tls, input)
            XCTAssertEqual(try SIPServerAddress(address.description), address, "\(input) reads back from its description")
        }
    }

    func testMalformedInputIsRefusedWithAReason() {
        let cases: [(input: String, reason: String)] = [
            ("", "is empty"),
            ("proxy.example.com\r\nVia: SIP/2.0/UDP evil", "control characters"),
            ("proxy.example.com\u{0}", "control characters"),
            ("\tproxy.example.com", "control characters"),
            ("proxy.example.com\u{7F}", "control characters"),
            ("proxy .example.com", "space"),
            ("proxy.example.com:0", "bad port"),
            ("proxy.example.com:65536", "bad port"),
            ("proxy.example.com:99999999999999999999", "bad port"),
            ("proxy.example.com:", "bad port"),
            ("proxy.example.com:http", "bad port"),
            ("proxy.example.com:-1", "bad port"),
            ("sip:proxy.example.com:0", "bad port"),
            ("sips:proxy.example.com:70000", "bad port"),
            ("[2001:db8::5]:0", "bad port"),
            ("http://proxy.example.com", "is not host, host:port, a sip:/sips: URI or a ws:/wss: URL"),
            ("tel:+14155550101", "is not host, host:port, a sip:/sips: URI or a ws:/wss: URL"),
            ("stun:stun.example.com", "is not host, host:port, a sip:/sips: URI or a ws:/wss: URL"),
            ("ws://", "is not a ws:// or wss:// URL with a host"),
            ("wss://user@edge.example.com/sip", "user part"),
            ("wss://edge.example.com:0/sip", "bad port"),
            ("ws://edge.example.com/#top", "fragment"),
            ("sip:", "is not host"),
            ("sip:alice@proxy.example.com", "user part"),
            ("alice:secret@proxy.example.com", "user part"),
            ("sip:proxy.example.com?Subject=hi", "URI headers"),
            ("[2001:db8::5", "is not host"),
            ("[2001:db8::zz]:5060", "is not host"),
            ("-proxy.example.com", "is not host"),
            ("!!!", "is not host"),
            ("proxy.example.com:5060:5061", "is not host"),
            ("proxy.example.com;", "is not host"),
            (String(repeating: "a", count: 5_000), "is not host"),
        ]
        for (input, reason) in cases {
            XCTAssertThrowsError(try SIPServerAddress(input), input.debugDescription) { error in
                guard let error = error as? VoiceError else { return XCTFail("\(error) is not a VoiceError") }
                XCTAssertEqual(error.code, .malformedRequest, input.debugDescription)
                let text = error.failureReason ?? ""
                XCTAssertTrue(text.contains(reason), "\(input.debugDescription.prefix(60)): \(text)")
                XCTAssertTrue(text.hasPrefix("SIP server address"), text)
                XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 }, "no control character is echoed: \(text.debugDescription)")
                XCTAssertLessThan(text.count, 400, "a long input is cut short in the reason")
            }
        }
    }

    /// The configuration holds the typed values, so a client is made with what was checked.
    func testTheConfigurationCarriesTheCheckedAddresses() throws {
        var configuration = VoiceClientConfiguration(
            identity: "alice", domain: "example.com", outboundProxy: try SIPServerAddress("127.0.0.1:5099"),
            registrar: try SIPServerAddress("sip:127.0.0.1:5098"), registers: false)
        configuration.stunServer = try STUNServerAddress("127.0.0.1:3479")
        XCTAssertEqual(configuration.outboundProxy?.description, "sip:127.0.0.1:5099")
        XCTAssertEqual(configuration.registrar?.port, 5098)
        XCTAssertEqual(configuration.stunServer?.port, 3479)
    }
}
