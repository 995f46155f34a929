#if canImport(Glibc)
    import Glibc
#endif
import VoiceAddress
import VoiceSTUN
import Foundation
import VoiceTestAudio
import VoiceSupport
import XCTest

@testable import VoiceNetwork

/// STUN messages (RFC 5389) against RFC 5769's test vectors, malformed input, and a Binding
/// transaction with a server on loopback.
final class STUNMessageTests: XCTestCase {
    /// RFC 5769 §2.2: a Binding success response with XOR-MAPPED-ADDRESS 192.0.2.1:32853.
    static let ipv4Response: [UInt8] = [
        0x01, 0x01, 0x00, 0x3c, 0x21, 0x12, 0xa4, 0x42, 0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae,
        0x80, 0x22, 0x00, 0x0b, 0x74, 0x65, 0x73, 0x74, 0x20, 0x76, 0x65, 0x63, 0x74, 0x6f, 0x72, 0x20,
        0x00, 0x20, 0x00, 0x08, 0x00, 0x01, 0xa1, 0x47, 0xe1, 0x12, 0xa6, 0x43,
        0x00, 0x08, 0x00, 0x14, 0x2b, 0x91, 0xf5, 0x99, 0xfd, 0x9e, 0x90, 0xc3, 0x8c, 0x74, 0x89, 0xf9, 0x2a, 0xf9, 0xba, 0x53,
        0xf0, 0x6b, 0xe7, 0xd7, 0x80, 0x28, 0x00, 0x04, 0xc0, 0x7d, 0x4c, 0x96,
    ]
    /// RFC 5769 §2.3: the same with 2001:db8:1234:5678:11:2233:4455:6677, port 32853.
    static let ipv6Response: [UInt8] = [
        0x01, 0x01, 0x00, 0x48, 0x21, 0x12, 0xa4, 0x42, 0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae,
        0x80, 0x22, 0x00, 0x0b, 0x74, 0x65, 0x73, 0x74, 0x20, 0x76, 0x65, 0x63, 0x74, 0x6f, 0x72, 0x20,
        0x00, 0x20, 0x00, 0x14, 0x00, 0x02, 0xa1, 0x47, 0x01, 0x13, 0xa9, 0xfa, 0xa5, 0xd3, 0xf1, 0x79, 0xbc, 0x25, 0xf4, 0xb5,
        0xbe, 0xd2, 0xb9, 0xd9,
        0x00, 0x08, 0x00, 0x14, 0xa3, 0x82, 0x95, 0x4e, 0x4b, 0xe6, 0x7b, 0xf1, 0x17, 0x84, 0xc9, 0x7c, 0x82, 0x92, 0xc2, 0x75,
        0xbf, 0xe3, 0xed, 0x41, 0x80, 0x28, 0x00, 0x04, 0xc8, 0xfb, 0x0b, 0x4c,
    ]

    func testRFC5769IPv4ResponseGivesItsMappedAddress() throws {
        let message = try STUNMessage(parsing: Self.ipv4Response)
        XCTAssertEqual(message.type, .bindingSuccess)
        XCTAssertEqual(message.transactionID, [0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae])
        XCTAssertEqual(message.attributes.map(\.type), [0x8022, 0x0020, 0x0008, 0x8028])
        XCTAssertEqual(String(decoding: try XCTUnwrap(message.attribute(STUNMessage.Attribute.software)).value, as: UTF8.self), "test vector")
        let mapped = try TransportAddress(stunResponse: message)
        XCTAssertEqual(mapped.description, "192.0.2.1:32853")
        // Serializing gives the RFC's bytes back, but for SOFTWARE's padding byte: the RFC's
        // sender padded with a space, we pad with zero (RFC 5389 §15: any value, ignored).
        var expected = Self.ipv4Response
        expected[35] = 0
        XCTAssertEqual(message.serialized, expected)
    }

    func testRFC5769IPv6ResponseGivesItsMappedAddress() throws {
        let mapped = try TransportAddress(stunResponse: STUNMessage(parsing: Self.ipv6Response))
        XCTAssertEqual(mapped.ip, IPAddress("2001:db8:1234:5678:11:2233:4455:6677"))
        XCTAssertEqual(mapped.port, 32853)
    }

    func testARequestRoundTripsAndOnlySTUNLooksLikeSTUN() throws {
        var rng = SplitMix64(seed: 5389)
        let request = STUNMessage.bindingRequest(using: &rng)
        XCTAssertEqual(request.serialized.count, 20)
        XCTAssertEqual(try STUNMessage(parsing: request.serialized), request)
        XCTAssertTrue(STUNMessage.looksLikeSTUN(request.serialized))
        XCTAssertTrue(STUNMessage.looksLikeSTUN(Self.ipv4Response))
        XCTAssertFalse(STUNMessage.looksLikeSTUN(Array("OPTIONS sip:a@b SIP/2.0\r\n\r\n".utf8)))
        XCTAssertFalse(STUNMessage.looksLikeSTUN([0x80, 111] + [UInt8](repeating: 0, count: 30)), "RTP")
        XCTAssertFalse(STUNMessage.looksLikeSTUN([0x0D, 0x0A, 0x0D, 0x0A]), "a keep-alive")
        // A server's answer, as the loopback server below writes it.
        let mapped = TransportAddress(ip: try XCTUnwrap(IPAddress("203.0.113.7")), port: 40_001)
        let response = STUNMessage(
            type: .bindingSuccess, transactionID: request.transactionID,
            attributes: [.init(type: STUNMessage.Attribute.xorMappedAddress, value: mapped.xorAttributeValue(transactionID: request.transactionID))])
        XCTAssertEqual(try TransportAddress(stunResponse: STUNMessage(parsing: response.serialized)), mapped)
    }

    func testMalformedMessagesAreTypedErrors() {
        func error(_ bytes: [UInt8]) -> STUNError? {
            do {
                _ = try STUNMessage(parsing: bytes)
                return nil
            } catch {
                return error
            }
        }
        var v4 = Self.ipv4Response
        XCTAssertEqual(error(Array(v4.prefix(19))), .truncated)
        v4[4] = 0x22
        XCTAssertEqual(error(v4), .notSTUN, "wrong magic cookie")
        XCTAssertEqual(error([0xC1] + Self.ipv4Response.dropFirst()), .notSTUN, "top bits set")
        XCTAssertEqual(error(Array(Self.ipv4Response.dropLast(4))), .badLength, "length says more than there is")
        var odd = Self.ipv4Response
        odd[3] = 0x3d
        XCTAssertEqual(error(odd), .badLength, "not a multiple of four")
        // An attribute claiming 0x100 bytes inside a 12-byte body.
        var past = Array(Self.ipv4Response.prefix(20)) + [0x00, 0x20, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]
        past[3] = 12
        XCTAssertEqual(error(past), .truncated)
        // A mapped address of an unknown family, and an error response.
        let badFamily = STUNMessage(type: .bindingSuccess, transactionID: [UInt8](repeating: 1, count: 12),
            attributes: [.init(type: STUNMessage.Attribute.xorMappedAddress, value: [0, 3, 0, 0, 1, 2, 3, 4])])
        XCTAssertThrowsError(try TransportAddress(stunResponse: badFamily)) { XCTAssertEqual($0 as? STUNError, .badAddress) }
        let refused = STUNMessage(type: .bindingError, transactionID: [UInt8](repeating: 1, count: 12),
            attributes: [.init(type: STUNMessage.Attribute.errorCode, value: [0, 0, 4, 20])])
        XCTAssertThrowsError(try TransportAddress(stunResponse: refused)) { XCTAssertEqual($0 as? STUNError, .errorResponse(420)) }
        let empty = STUNMessage(type: .bindingSuccess, transactionID: [UInt8](repeating: 1, count: 12))
        XCTAssertThrowsError(try TransportAddress(stunResponse: empty)) { XCTAssertEqual($0 as? STUNError, .noMappedAddress) }
    }

    func testRandomAndCorruptedBytesNeverCrash() {
        var rng = SplitMix64(seed: 5769)
        for _ in 0..<20_000 {
            var bytes = Self.ipv4Response
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
            if let message = try? STUNMessage(parsing: bytes) { _ = try? TransportAddress(stunResponse: message) }
        }
    }

    /// A Binding transaction from a bound socket to a server on loopback that drops the first
    /// request: the retransmission gets the answer, which names the socket's own address.
    func testTheBindingClientRetransmitsAndLearnsTheSocketsAddress() throws {
        let server = try LoopbackSTUNServer(dropFirst: 1)
        defer { server.stop() }
        let client = try LoopbackSTUNServer.boundSocket()
        defer { close(client.descriptor) }
        let mapped = try STUNBindingClient.query(descriptor: client.descriptor, server: server.address)
        XCTAssertEqual(mapped.description, "127.0.0.1:\(client.port)")
        XCTAssertEqual(server.requests, 2)
    }

    func testAServerThatNeverAnswersTimesOut() throws {
        let server = try LoopbackSTUNServer(dropFirst: .max)
        defer { server.stop() }
        let client = try LoopbackSTUNServer.boundSocket()
        defer { close(client.descriptor) }
        let started = Date()
        XCTAssertThrowsError(try STUNBindingClient.query(descriptor: client.descriptor, server: server.address)) {
            XCTAssertEqual($0 as? STUNError, .timedOut)
        }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1.4)
        XCTAssertEqual(server.requests, 3, "sent at 0, 250 and 750 ms")
    }
}

/// A STUN server on loopback: answers Binding requests with the sender's address, after
/// dropping the first `dropFirst`.
private final class LoopbackSTUNServer: @unchecked Sendable {
    // @unchecked: `count` is behind `lock`; the rest is set in init.
    let address: TransportAddress
    private let descriptor: Int32
    private let lock = NSLock()
    private var count = 0
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    var requests: Int { lock.withLock { count } }

    static func boundSocket() throws -> (descriptor: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    init(dropFirst: Int) throws {
        let (fd, port) = try Self.boundSocket()
        descriptor = fd
        address = TransportAddress(ip: IPAddress("127.0.0.1")!, port: port)
        Thread {
            var buffer = [UInt8](repeating: 0, count: 1_500)
            while self.lock.withLock({ self.running }) {
                var fds = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&fds, 1, 20) > 0 else { continue }
                var from = sockaddr_in()
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let n = withUnsafeMutablePointer(to: &from) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, &buffer, buffer.count, 0, $0, &length) }
                }
                guard n > 0, let request = try? STUNMessage(parsing: buffer[0..<n]), request.type == .bindingRequest else { continue }
                let seen = self.lock.withLock { self.count += 1; return self.count }
                guard seen > dropFirst else { continue }
                let sender = TransportAddress(ip: IPAddress(bytes: withUnsafeBytes(of: from.sin_addr) { Array($0) })!, port: UInt16(bigEndian: from.sin_port))
                let response = STUNMessage(
                    type: .bindingSuccess, transactionID: request.transactionID,
                    attributes: [.init(type: STUNMessage.Attribute.xorMappedAddress, value: sender.xorAttributeValue(transactionID: request.transactionID))])
                let bytes = response.serialized
                _ = withUnsafePointer(to: &from) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, bytes, bytes.count, 0, $0, length) }
                }
            }
            self.done.signal()
        }.start()
    }

    func stop() {
        lock.withLock { running = false }
        done.wait()
        close(descriptor)
    }
}
