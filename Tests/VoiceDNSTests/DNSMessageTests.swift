import VoiceAddress
import XCTest

@testable import VoiceDNS

final class DNSMessageTests: XCTestCase {
    /// RFC 1035 §4.1.4's example of compression: F.ISI.ARPA, then FOO.F.ISI.ARPA as a label and
    /// a pointer to it, then ARPA as a pointer into the first name.
    func testCompressedNamesAsRFC1035Describes() throws {
        var bytes: [UInt8] = [0x12, 0x34, 0x81, 0x80, 0, 1, 0, 2, 0, 0, 0, 0]
        let question = bytes.count  // 12
        bytes += [1, 0x46, 3, 0x49, 0x53, 0x49, 4, 0x41, 0x52, 0x50, 0x41, 0]  // F.ISI.ARPA
        let arpa = question + 6
        bytes += [0, 1, 0, 1]  // A IN
        // FOO.F.ISI.ARPA A 10.0.0.1
        bytes += [3, 0x46, 0x4F, 0x4F, 0xC0, UInt8(question)]
        bytes += [0, 1, 0, 1, 0, 0, 0x0E, 0x10, 0, 4, 10, 0, 0, 1]
        // ARPA CNAME F.ISI.ARPA (both as pointers)
        bytes += [0xC0, UInt8(arpa), 0, 5, 0, 1, 0, 0, 0, 60, 0, 2, 0xC0, UInt8(question)]
        let message = try DNSMessage(parsing: bytes)
        XCTAssertEqual(message.id, 0x1234)
        XCTAssertTrue(message.isResponse)
        XCTAssertEqual(message.question, DNSQuestion("f.isi.arpa", .a))
        XCTAssertEqual(message.answers.map(\.name), ["foo.f.isi.arpa", "arpa"])
        XCTAssertEqual(message.answers[0].data, .address(try XCTUnwrap(IPAddress("10.0.0.1"))))
        XCTAssertEqual(message.answers[0].ttl, 3_600)
        XCTAssertEqual(message.answers[1].data, .cname("f.isi.arpa"))
    }

    /// RFC 3263 §4.1's example zone: NAPTR records for TLS, TCP and UDP, read back as written.
    func testTheNAPTRRecordsOfRFC3263() throws {
        let records = [
            DNSNamingPointer(order: 50, preference: 50, flags: "s", service: "SIPS+D2T", regexp: "", replacement: "_sips._tcp.example.com"),
            DNSNamingPointer(order: 90, preference: 50, flags: "s", service: "SIP+D2T", regexp: "", replacement: "_sip._tcp.example.com"),
            DNSNamingPointer(order: 100, preference: 50, flags: "s", service: "SIP+D2U", regexp: "", replacement: "_sip._udp.example.com."),
        ]
        let message = DNSMessage(
            question: DNSQuestion("example.com", .naptr),
            answers: records.map { DNSResourceRecord(name: "example.com", ttl: 300, data: .naptr($0)) })
        let parsed = try DNSMessage(parsing: message.serialized())
        XCTAssertEqual(parsed, message)
        XCTAssertEqual(parsed.answers.last?.data, .naptr(records[2]))
        if case .naptr(let last)? = parsed.answers.last?.data { XCTAssertEqual(last.replacement, "_sip._udp.example.com") }
    }

    /// RFC 2782's SRV data, an SOA in the authority section and A/AAAA additionals round-trip.
    func testServiceRecordsAuthorityAndAdditionalsRoundTrip() throws {
        let message = DNSMessage(
            id: 7, question: DNSQuestion("_sip._udp.example.com", .srv),
            answers: [
                DNSResourceRecord(
                    name: "_sip._udp.example.com", ttl: 60, data: .srv(DNSServiceRecord(priority: 10, weight: 60, port: 5060, target: "a.example.com")))
            ],
            authorities: [DNSResourceRecord(name: "example.com", ttl: 3_600, data: .soa(minimum: 120))],
            additionals: [
                DNSResourceRecord(name: "a.example.com", ttl: 60, data: .address(try XCTUnwrap(IPAddress("192.0.2.1")))),
                DNSResourceRecord(name: "a.example.com", ttl: 60, data: .address(try XCTUnwrap(IPAddress("2001:db8::1")))),
            ])
        XCTAssertEqual(try DNSMessage(parsing: message.serialized()), message)
    }

    func testATopBitTTLReadsAsZero() throws {
        var bytes = DNSMessage(
            question: DNSQuestion("a.test", .a),
            answers: [DNSResourceRecord(name: "a.test", ttl: 5, data: .address(try XCTUnwrap(IPAddress("192.0.2.1"))))]
        ).serialized()
        let ttlOffset = bytes.count - 4 - 2 - 4
        bytes[ttlOffset] = 0x80
        XCTAssertEqual(try DNSMessage(parsing: bytes).answers.first?.ttl, 0)
    }

    // MARK: - Malformed input

    private func assertRejects(_ bytes: [UInt8], _ kind: DNSError.Kind, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try DNSMessage(parsing: bytes), file: file, line: line) { error in
            XCTAssertEqual((error as? DNSError)?.kind, kind, "\(error)", file: file, line: line)
        }
    }

    func testEveryTruncationOfAnAnswerIsAnErrorNotACrash() throws {
        let whole = DNSMessage(
            question: DNSQuestion("_sip._tcp.example.com", .srv),
            answers: [
                DNSResourceRecord(
                    name: "_sip._tcp.example.com", ttl: 60, data: .srv(DNSServiceRecord(priority: 1, weight: 1, port: 5060, target: "pbx.example.com")))
            ]
        ).serialized()
        for length in 0..<whole.count {
            XCTAssertThrowsError(try DNSMessage(parsing: Array(whole.prefix(length))), "\(length) bytes")
        }
        XCTAssertNoThrow(try DNSMessage(parsing: whole))
    }

    func testAPointerForwardOrToItselfIsRejected() {
        // The question's name is a pointer to itself.
        assertRejects([0, 1, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 12, 0, 1, 0, 1], .malformed)
        // A pointer forward, into the type field.
        assertRejects([0, 1, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 14, 0, 1, 0, 1], .malformed)
    }

    func testTwoPointersThatLeadToEachOtherAreRejected() {
        // Name A at 12: label "a" then a pointer to 17; name B at 17: label "b" then a pointer to 12.
        let bytes: [UInt8] = [0, 1, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0x61, 0xC0, 17, 0, 1, 0x62, 0xC0, 12, 0, 1, 0, 1]
        XCTAssertThrowsError(try DNSMessage(parsing: bytes))
    }

    func testTooManyRecordsIsOversized() {
        var header: [UInt8] = [0, 1, 0x81, 0x80, 0, 1, 0x01, 0x01, 0, 0, 0, 0]
        header += DNSMessage.name("a.test") + [0, 1, 0, 1]
        assertRejects(header, .oversized)
        assertRejects([UInt8](repeating: 0, count: 70_000), .oversized)
    }

    func testANameOver255BytesIsRejected() {
        let long = (0..<5).map { _ in String(repeating: "x", count: 60) }.joined(separator: ".")
        let bytes = [0, 1, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0] + DNSMessage.name(long) + [0, 1, 0, 1]
        assertRejects(bytes, .malformed)
    }

    func testALabelWithAControlByteOrADotIsRejected() {
        assertRejects([0, 1, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 3, 0x61, 0x00, 0x62, 0, 0, 1, 0, 1], .malformed)
        assertRejects([0, 1, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 3, 0x61, 0x2E, 0x62, 0, 0, 1, 0, 1], .malformed)
    }

    func testAnAddressOfTheWrongLengthIsRejected() throws {
        var bytes = DNSMessage(
            question: DNSQuestion("a.test", .a),
            answers: [DNSResourceRecord(name: "a.test", ttl: 5, data: .address(try XCTUnwrap(IPAddress("192.0.2.1"))))]
        ).serialized()
        bytes[bytes.count - 5] = 3  // RDLENGTH 3
        bytes.removeLast()
        assertRejects(bytes, .malformed)
    }

    func testAnSRVTargetRunningPastItsRecordIsRejected() throws {
        var bytes = DNSMessage(
            question: DNSQuestion("_sip._udp.a.test", .srv),
            answers: [
                DNSResourceRecord(name: "_sip._udp.a.test", ttl: 5, data: .srv(DNSServiceRecord(priority: 1, weight: 1, port: 1, target: "b.test")))
            ]
        ).serialized()
        // RDLENGTH two short: the target's last label and root fall outside the record.
        let rdlength = bytes.count - (6 + 8) - 2
        bytes[rdlength + 1] -= 2
        XCTAssertThrowsError(try DNSMessage(parsing: bytes))
    }

    func testTwoQuestionsAreRejected() {
        assertRejects([0, 1, 0x81, 0x80, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1], .malformed)
    }
}
