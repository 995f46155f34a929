#if canImport(Glibc)
    import Glibc
#endif
import VoiceDTLS
import VoiceRTP
import VoiceSupport

/// A call's TCP or TLS connection to its TURN server (RFC 8656 §3.1, for networks that block
/// UDP) as one more transport of its stream: each framed message from the server is a
/// "datagram" from the server's address, and each datagram sent is a message, written whole
/// or dropped whole (see ``TURNStreamConnection``). When the connection ends it goes quiet, and
/// the relayed path then loses consent like any dead path.
///
/// Threading: as ``UDPSocket``: used on the media thread that runs the stream.
package final class TURNStreamTransport: MediaTransport, @unchecked Sendable {
    package let connection: TURNStreamConnection
    private let server: SocketAddress
    package let localAddress: SocketAddress

    /// Takes over `connection` to `server`.
    package init(_ connection: TURNStreamConnection, server: SocketAddress) {
        self.connection = connection
        self.server = server
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        if let fd = connection.descriptor {
            _ = withUnsafeMutablePointer(to: &bound) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
        }
        localAddress = SocketAddress(storage: bound, length: length)
    }

    package var readinessDescriptor: Int32? { connection.descriptor }
    package var isBroken: Bool { connection.isBroken }
    package var droppedSends: Int { connection.droppedWrites }

    package func receive(into buffer: UnsafeMutableRawBufferPointer, from source: inout SocketAddress, wallClockOffset: Int64)
        -> ReceivedDatagram?
    {
        guard let length = connection.readMessage(into: buffer) else { return nil }
        source = server
        return ReceivedDatagram(length: length, arrival: nil)
    }

    package func send(_ datagram: UnsafeRawBufferPointer, to destination: SocketAddress) -> Bool {
        connection.write(datagram)
    }

    package func close() { connection.close() }
}
