import VoiceAddress
import VoiceBytes
import VoiceTestAudio
import VoiceSupport
import XCTest

@testable import VoiceNetwork

/// The rtnetlink decoder against dumps captured from the kernel, and against malformed input.
final class NetlinkMessageParserTests: XCTestCase {
    private func events(_ datagrams: [String]) throws -> [NetlinkEvent] {
        try datagrams.flatMap { hex in
            try parse([UInt8](hex: hex))
        }
    }

    private func parse(_ bytes: [UInt8]) throws -> [NetlinkEvent] {
        try bytes.withUnsafeBytes { raw in try NetlinkMessageParser.parse(raw) }
    }

    func testCapturedLinkDump() throws {
        let decoded = try events(NetlinkCapturedDumps.links)
        let links = decoded.compactMap { if case .link(let link) = $0 { link } else { nil } }
        XCTAssertEqual(links.map(\.name), ["lo", "v1", "v0"])
        XCTAssertEqual(links.map(\.index), [1, 2, 3])
        XCTAssertEqual(links[0].hardwareType, ARPHardware.loopback)
        XCTAssertTrue(links[0].isLoopback)
        XCTAssertTrue(links[0].isUsable)
        XCTAssertEqual(links[2].hardwareType, ARPHardware.ether)
        XCTAssertEqual(links[2].kind, "veth")
        XCTAssertEqual(links[2].operationalState, 6, "IF_OPER_UP")
        XCTAssertTrue(links[2].isUsable)
        XCTAssertEqual(decoded.last, .done(sequence: 7))
    }

    func testCapturedAddressDump() throws {
        let addresses = try events(NetlinkCapturedDumps.addresses).compactMap {
            if case .address(let address) = $0 { address } else { nil }
        }
        let text = Set(addresses.map { "\($0.interfaceIndex) \($0.address)/\($0.prefixLength)" })
        XCTAssertTrue(text.isSuperset(of: ["1 127.0.0.1/8", "3 10.20.0.2/24", "1 ::1/128", "3 2001:db8::2/64"]), "\(text)")
        let v4 = try XCTUnwrap(addresses.first { $0.address == IPAddress("10.20.0.2") })
        XCTAssertEqual(v4.scope, 0)
        XCTAssertTrue(v4.isUsable)
        let linkLocal = addresses.filter { $0.address.isLinkLocal }
        XCTAssertFalse(linkLocal.isEmpty)
        XCTAssertTrue(linkLocal.allSatisfy { !$0.isUsable }, "link-local (and tentative) addresses are not for calls")
        let loopback = try XCTUnwrap(addresses.first { $0.address == IPAddress("127.0.0.1") })
        XCTAssertEqual(loopback.scope, 254, "RT_SCOPE_HOST")
    }

    func testCapturedRouteDump() throws {
        let routes = try events(NetlinkCapturedDumps.routes).compactMap { if case .route(let route) = $0 { route } else { nil } }
        let defaults = routes.filter(\.isDefault)
        XCTAssertEqual(defaults.count, 1, "\(defaults)")
        XCTAssertEqual(defaults.first?.outputInterface, 3)
        XCTAssertEqual(defaults.first?.gateway, IPAddress("10.20.0.1"))
        XCTAssertEqual(defaults.first?.metric, 100)
        XCTAssertFalse(defaults.first?.isIPv6 ?? true)
        XCTAssertTrue(routes.contains { !$0.isDefault && $0.table == 255 }, "the local table's routes are decoded, not kept")
    }

    func testTheStateFromTheCapturedDumpsRanksTheVethAddressFirst() throws {
        var state = NetworkState()
        for event in try events(NetlinkCapturedDumps.links + NetlinkCapturedDumps.addresses + NetlinkCapturedDumps.routes) {
            state.apply(event)
        }
        let candidates = state.candidates(classifier: NetworkInterfaceClassifier { _ in nil })
        XCTAssertEqual(
            candidates.map(\.description),
            [
                "10.20.0.2 on v0 (ETHERNET, default route metric 100)", "2001:db8::2 on v0 (ETHERNET)",
                "127.0.0.1 on lo (LOOPBACK)", "::1 on lo (LOOPBACK)",
            ])
        XCTAssertEqual(candidates.preferred(for: IPAddress("192.0.2.9"))?.address, IPAddress("10.20.0.2"))
        XCTAssertEqual(candidates.preferred(for: IPAddress("127.0.0.1"))?.address, IPAddress("127.0.0.1"))
        XCTAssertEqual(candidates.preferred(for: IPAddress("2001:db8::9"))?.address, IPAddress("2001:db8::2"), "on-link")
    }

    func testDumpRequestsAreWhatTheKernelExpects() {
        for (request, type, length) in [(NetlinkDumpRequest.links, 18, 32), (.addresses, 22, 24), (.routes, 26, 28)] {
            var bytes = request.bytes(sequence: 9)
            bytes.withUnsafeBytes { raw in
                var reader = ByteReader(raw)
                XCTAssertEqual(try? reader.readHostUInt32(), UInt32(length))
                XCTAssertEqual(try? reader.readHostUInt16(), UInt16(type))
                XCTAssertEqual(try? reader.readHostUInt16(), 0x301, "NLM_F_REQUEST | NLM_F_DUMP")
                XCTAssertEqual(try? reader.readHostUInt32(), 9)
            }
            bytes.removeFirst(16)
            XCTAssertTrue(bytes.allSatisfy { $0 == 0 })
        }
    }

    // MARK: - Malformed input

    /// A header, then `payload`, with the header's length field set to `length` (default: the truth).
    private func message(type: UInt16, payload: [UInt8], length: UInt32? = nil) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        bytes.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            try? writer.writeHost(length ?? UInt32(16 + payload.count))
            try? writer.writeHost(type)
        }
        return bytes + payload
    }

    private func attribute(_ type: UInt16, _ value: [UInt8], length: UInt16? = nil) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 4)
        header.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            try? writer.writeHost(length ?? UInt16(4 + value.count))
            try? writer.writeHost(type)
        }
        let padding = [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
        return header + value + padding
    }

    func testMalformedMessagesAreTypedErrors() {
        let addressHeader: [UInt8] = [2, 24, 0, 0, 3, 0, 0, 0]
        let cases: [(String, [UInt8])] = [
            ("length below the header", message(type: 16, payload: [], length: 8)),
            ("length beyond the datagram", message(type: 16, payload: [UInt8](repeating: 0, count: 16), length: 400)),
            ("truncated link header", message(type: 16, payload: [0, 0, 1, 0])),
            ("attribute length below 4", message(type: 20, payload: addressHeader + attribute(2, [10, 0, 0, 1], length: 2))),
            ("attribute past its message", message(type: 20, payload: addressHeader + attribute(2, [10, 0, 0, 1], length: 60))),
            ("IPv4 message with a 3-byte address", message(type: 20, payload: addressHeader + attribute(2, [10, 0, 0]))),
            ("IPv6 family with an IPv4 address", message(type: 20, payload: [10, 64, 0, 0, 3, 0, 0, 0] + attribute(2, [10, 0, 0, 1]))),
            ("trailing bytes", message(type: 3, payload: [0, 0, 0, 0]) + [1, 2, 3]),
            ("truncated error code", message(type: 2, payload: [1, 2])),
        ]
        for (name, bytes) in cases {
            XCTAssertThrowsError(try parse(bytes), name) { XCTAssertTrue($0 is NetlinkParseError, name) }
        }
    }

    func testUnknownTypesAndFamiliesDecodeToNothing() throws {
        XCTAssertEqual(try parse(message(type: 1, payload: [])), [], "NLMSG_NOOP")
        XCTAssertEqual(try parse(message(type: 99, payload: [1, 2, 3, 4])), [])
        let bridgeFamily = message(type: 20, payload: [7, 0, 0, 0, 3, 0, 0, 0])
        XCTAssertEqual(try parse(bridgeFamily), [], "AF_BRIDGE addresses are not ours")
        XCTAssertEqual(try parse(message(type: 4, payload: [])), [.overrun])
        XCTAssertEqual(try parse([]), [])
    }

    /// Every truncation and thousands of seeded corruptions of the captured dumps either decode
    /// or throw ``NetlinkParseError``: no crash, no hang. Replay a failure with its seed.
    func testCorruptedDumpsNeverCrash() {
        let datagrams = (NetlinkCapturedDumps.links + NetlinkCapturedDumps.addresses + NetlinkCapturedDumps.routes)
            .map { [UInt8](hex: $0) }
        for datagram in datagrams {
            for cut in stride(from: 0, to: datagram.count, by: 3) { _ = try? parse(Array(datagram[..<cut])) }
        }
        var random = SplitMix64(seed: 0x6E6C_696E_6B)
        var decoded = 0
        for _ in 0..<3_000 {
            var bytes = datagrams[Int(random.next() % UInt64(datagrams.count))]
            for _ in 0..<(1 + Int(random.next() % 4)) {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            if (try? parse(bytes)) != nil { decoded += 1 }
        }
        // Most single-byte corruptions hit an attribute value, which still decodes; some hit a length.
        XCTAssertGreaterThan(decoded, 0)
        XCTAssertLessThan(decoded, 3_000)
    }
}
