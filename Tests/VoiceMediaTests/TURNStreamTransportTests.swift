#if canImport(Glibc)
    import Glibc
#endif
import VoiceSTUN
import VoiceDTLS
import VoiceICE
import VoiceNetwork
import VoiceRTP
import XCTest

@testable import VoiceMedia

/// The TCP connection to a TURN server as a media transport (RFC 8656 §12.5's framing), over a
/// socket pair: messages cut anywhere arrive whole and one at a time, padding is part of a
/// ChannelData frame, a stream out of step or closed goes quiet, and sends stay whole.
final class TURNStreamTransportTests: XCTestCase {
    private var server = try! SocketAddress(host: "192.0.2.1", port: 3478)

    private func pair() throws -> (TURNStreamTransport, Int32) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw XCTSkip("socketpair: errno \(errno)") }
        return (TURNStreamTransport(TURNStreamConnection(adopting: fds[0]), server: server), fds[1])
    }

    private func write(_ bytes: [UInt8], to fd: Int32) {
        XCTAssertEqual(bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }, bytes.count)
    }

    private func receiveAll(_ transport: TURNStreamTransport) -> [[UInt8]] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2_048, alignment: 8)
        defer { buffer.deallocate() }
        var source = SocketAddress.unspecified
        var messages: [[UInt8]] = []
        while let datagram = transport.receive(into: buffer, from: &source, wallClockOffset: 0) {
            XCTAssertEqual(source, server)
            messages.append(Array(buffer[0..<datagram.length]))
        }
        return messages
    }

    func testFramedLengthsFollowRFC8656() {
        XCTAssertEqual(TURN.framedLength(header: 0x01, 0x01, 0x00, 0x08), 28, "a STUN success with 8 bytes of attributes")
        XCTAssertNil(TURN.framedLength(header: 0x01, 0x01, 0x00, 0x07), "STUN lengths are multiples of 4")
        XCTAssertEqual(TURN.framedLength(header: 0x40, 0x00, 0x00, 0x05), 12, "ChannelData padded to 4 over a stream")
        XCTAssertEqual(TURN.framedLength(header: 0x40, 0x00, 0x00, 0x00), 4)
        XCTAssertNil(TURN.framedLength(header: 0x80, 0x00, 0x00, 0x10), "RTP never comes from the server on its own")
    }

    func testMessagesCutAnywhereArriveWholeAndOneAtATime() throws {
        let (transport, peer) = try pair()
        defer {
            transport.close()
            close(peer)
        }
        let stun = STUNMessage(type: .bindingSuccess, transactionID: [UInt8](repeating: 7, count: 12)).serialized
        let channel = TURN.channelData([1, 2, 3, 4, 5], channel: 0x4001)
        let stream = stun + channel + channel
        // Cut inside the first header, inside the first body, and between the ChannelData frames.
        for piece in [Array(stream[0..<2]), Array(stream[2..<15]), Array(stream[15...])] {
            write(piece, to: peer)
            usleep(1_000)
        }
        let messages = receiveAll(transport)
        XCTAssertEqual(messages, [stun, channel, channel])
        XCTAssertEqual(messages.last?.count, 12, "the padding is part of the frame")
        XCTAssertFalse(transport.isBroken)
    }

    func testAStreamOutOfStepOrClosedGoesQuiet() throws {
        let (transport, peer) = try pair()
        defer { transport.close() }
        write([0x80, 0x00, 0x00, 0x10] + [UInt8](repeating: 0, count: 16), to: peer)
        XCTAssertEqual(receiveAll(transport), [])
        XCTAssertTrue(transport.isBroken, "not a TURN message: out of step for good")
        XCTAssertFalse(transport.send(UnsafeRawBufferPointer(start: nil, count: 0), to: server))
        close(peer)

        let (other, otherPeer) = try pair()
        defer { other.close() }
        close(otherPeer)
        XCTAssertEqual(receiveAll(other), [])
        XCTAssertTrue(other.isBroken, "the server closed the connection")
        // The descriptor no longer turns readable.
        var fds = pollfd(fd: other.readinessDescriptor ?? -1, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&fds, 1, 0), 0)
    }

    func testSendsAreWholeEvenWhenTheKernelTakesPart() throws {
        let (transport, peer) = try pair()
        defer {
            transport.close()
            close(peer)
        }
        var small: Int32 = 4_096
        _ = setsockopt(transport.readinessDescriptor ?? -1, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let frame = TURN.channelData([UInt8](repeating: 0xAB, count: 996), channel: 0x4000)
        var accepted = 0
        for _ in 0..<400 where frame.withUnsafeBytes({ transport.send($0, to: server) }) { accepted += 1 }
        XCTAssertGreaterThan(transport.droppedSends, 0, "the peer reads nothing: the buffer fills and whole frames are dropped")
        // Once the peer reads, later sends flush the rest first (empty ones here): every
        // accepted frame arrives, whole and in order.
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        for _ in 0..<200 {
            let n = recv(peer, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if n > 0 { received += chunk[0..<n] }
            _ = transport.send(UnsafeRawBufferPointer(start: nil, count: 0), to: server)
            if received.count >= accepted * frame.count { break }
            usleep(1_000)
        }
        XCTAssertEqual(received.count, accepted * frame.count)
        XCTAssertEqual(received.count % frame.count, 0, "only whole frames")
        XCTAssertTrue(stride(from: 0, to: received.count, by: frame.count).allSatisfy { Array(received[$0..<($0 + frame.count)]) == frame })
    }
}
