import VoiceAddress
import VoiceRTP
import XCTest

/// The socket edge: a transport address and a kernel socket address convert both ways, byte for
/// byte, and what is neither IPv4 nor IPv6 converts to nothing.
final class SocketAddressTransportAddressTests: XCTestCase {
    func testBothFamiliesRoundTripAndAgreeWithTheTextForm() throws {
        for (text, port) in [("192.0.2.7", UInt16(3_478)), ("2001:db8::1:2", 49_170), ("0.0.0.0", 0), ("::1", 65_535)] {
            let transport = TransportAddress(ip: try XCTUnwrap(IPAddress(text)), port: port)
            let socket = SocketAddress(transport)
            XCTAssertEqual(socket, try SocketAddress(host: text, port: Int(port)), text)
            XCTAssertEqual(socket.port, Int(port))
            XCTAssertEqual(TransportAddress(socket), transport, text)
            XCTAssertEqual(socket.description, transport.description)
        }
    }

    func testAnAddressWithNoFamilyIsNoTransportAddress() {
        XCTAssertNil(TransportAddress(SocketAddress.unspecified))
    }
}
