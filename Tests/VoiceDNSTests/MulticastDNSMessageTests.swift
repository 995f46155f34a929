import VoiceAddress
import XCTest

@testable import VoiceDNS

/// The mDNS (RFC 6762) query we send for a peer's `.local` candidate, and the responses we read:
/// a browser's (ID 0, no question, cache-flush class, an NSEC beside the address), goodbyes,
/// and what is not a usable response.
final class MulticastDNSMessageTests: XCTestCase {
    static let name = "3f8e5b2a-9c41-4d7e-a0b6-1c2d3e4f5a6b.local"

    static func labels(_ name: String) -> [UInt8] {
        name.split(separator: ".").flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0]
    }

    /// A response as Chromium's responder writes one (services/network/mdns_responder.cc):
    /// header (ID 0, QR+AA, 0 questions, 1 answer, 0 authority, 1 additional), the A record
    /// with class 0x8001 and TTL 120, and an NSEC for the name saying it has only A.
    static func chromiumAnswer(ttl: UInt32 = 120, address: [UInt8] = [192, 168, 1, 20], flags: [UInt8] = [0x84, 0x00]) -> [UInt8] {
        var bytes: [UInt8] = [0, 0] + flags + [0, 0, 0, 1, 0, 0, 0, 1]
        bytes += labels(name)
        bytes += [0, 1, 0x80, 1] + withUnsafeBytes(of: ttl.bigEndian, Array.init) + [0, 4] + address
        // NSEC: owner = pointer to the name at offset 12; next name = the same pointer; window 0, 1 byte, A.
        bytes += [0xC0, 12, 0, 47, 0x80, 1] + withUnsafeBytes(of: ttl.bigEndian, Array.init) + [0, 5, 0xC0, 12, 0, 1, 0x40]
        return bytes
    }

    func testTheQueryIsOneQuestionOfClassINWithNoFlags() {
        let query = MulticastDNSResponse.query(for: "ab.local", type: .a)
        XCTAssertEqual(query, [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2, 0x61, 0x62, 5, 0x6C, 0x6F, 0x63, 0x61, 0x6C, 0, 0, 1, 0, 1])
    }

    func testAChromiumAnswerGivesTheAddressWhateverTheCase() throws {
        let response = try MulticastDNSResponse(parsing: Self.chromiumAnswer())
        XCTAssertEqual(response.addresses(of: Self.name.uppercased()), [IPAddress("192.168.1.20")])
        XCTAssertEqual(response.addresses(of: "other.local"), [])
        XCTAssertEqual(response.records.count, 2, "the address and the NSEC")
        XCTAssertEqual(response.records[1].type, DNSRecordType(rawValue: 47))
    }

    func testAnIPv6AnswerAndAnEchoedQuestionAreRead() throws {
        var bytes: [UInt8] = [0, 0, 0x84, 0, 0, 1, 0, 1, 0, 0, 0, 0]
        bytes += Self.labels(Self.name) + [0, 28, 0, 1]
        bytes += [0xC0, 12, 0, 28, 0x80, 1, 0, 0, 0, 120, 0, 16] + [0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7]
        XCTAssertEqual(try MulticastDNSResponse(parsing: bytes).addresses(of: Self.name), [IPAddress("fd00::7")])
    }

    func testAGoodbyeGivesNoAddress() throws {
        XCTAssertEqual(try MulticastDNSResponse(parsing: Self.chromiumAnswer(ttl: 0)).addresses(of: Self.name), [])
    }

    func testQueriesAndNonZeroCodesAreNotResponses() {
        XCTAssertThrowsError(try MulticastDNSResponse(parsing: MulticastDNSResponse.query(for: Self.name, type: .a)), "a query")
        XCTAssertThrowsError(try MulticastDNSResponse(parsing: Self.chromiumAnswer(flags: [0x84, 0x03])), "rcode 3")
        XCTAssertThrowsError(try MulticastDNSResponse(parsing: Self.chromiumAnswer(flags: [0x8C, 0x00])), "opcode 1")
    }

    func testMalformedResponsesFailTyped() {
        let whole = Self.chromiumAnswer()
        for cut in [0, 5, 11, 20, 60, whole.count - 1] {
            XCTAssertThrowsError(try MulticastDNSResponse(parsing: Array(whole.prefix(cut))), "cut at \(cut)") { error in
                XCTAssertTrue(error is DNSError)
            }
        }
        // A wrong-length address, a name that points at itself, too many records.
        XCTAssertThrowsError(try MulticastDNSResponse(parsing: Self.chromiumAnswer(address: [10, 0, 0])))
        var loop: [UInt8] = [0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xC0, 12, 0, 1, 0, 1, 0, 0, 0, 1, 0, 4, 1, 2, 3, 4]
        XCTAssertThrowsError(try MulticastDNSResponse(parsing: loop))
        loop[7] = 0xFF
        loop[6] = 0xFF
        XCTAssertThrowsError(try MulticastDNSResponse(parsing: loop)) { error in
            XCTAssertEqual((error as? DNSError)?.kind, .oversized)
        }
        XCTAssertThrowsError(try MulticastDNSResponse(parsing: [UInt8](repeating: 0, count: 9_001)))
    }

    /// A record of another class (CHAOS, with the cache-flush bit) is not an address.
    func testOtherClassesAreNotAddresses() throws {
        var bytes = Self.chromiumAnswer()
        let classOffset = 12 + Self.labels(Self.name).count + 2
        bytes[classOffset + 1] = 3
        XCTAssertEqual(try MulticastDNSResponse(parsing: bytes).addresses(of: Self.name), [])
    }
}
