#if canImport(Glibc)
    import Glibc
#endif
import VoiceRTP
import Foundation
import VoiceMedia

/// A raw UDP socket for hand-written SIP: sends text, waits (bounded) for datagrams.
///
/// Used to probe a peer for readiness and by interop tests that speak SIP without our stack.
/// Threading: use from one thread at a time.
package final class SIPPeerUDPChannel {
    /// The largest datagram read; longer ones are truncated by the kernel.
    package static let maximumDatagramSize = 65_535

    private let socket: UDPSocket

    /// The bound local address (send it in `Via` and `Contact`).
    package var localAddress: SocketAddress { socket.localAddress }

    /// Opens a socket on `host` with a free port.
    package init(host: String = "127.0.0.1") throws(SIPPeerError) {
        do {
            socket = try UDPSocket(bindTo: SocketAddress(host: host, port: 0))
        } catch {
            throw SIPPeerError(.socket, "cannot open a UDP socket on \(host): \(error)")
        }
    }

    /// Sends `message` as one datagram. Bare `\n` line ends are sent as they are: write `\r\n`.
    package func send(_ message: String, to destination: SocketAddress) throws(SIPPeerError) {
        let bytes = Array(message.utf8)
        let sent = bytes.withUnsafeBytes { socket.send($0, to: destination) }
        guard sent else { throw SIPPeerError(.socket, "send of \(bytes.count) bytes to \(destination) failed") }
    }

    /// Waits up to `timeout` for one datagram and returns it as text (invalid UTF-8 repaired),
    /// or nil when the time runs out.
    package func receive(timeout: Duration) -> String? {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: Self.maximumDatagramSize)
        while true {
            let count = buffer.withUnsafeMutableBytes { socket.receive(into: $0) }
            if let count { return String(decoding: buffer[0..<count], as: UTF8.self) }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            let (seconds, attoseconds) = left.components
            let millis = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var pfd = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, millis)
        }
    }

    /// Waits up to `timeout` for a datagram that `accept` takes, dropping the others
    /// (retransmissions, requests from the peer); nil when the time runs out.
    package func receive(timeout: Duration, where accept: (String) -> Bool) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero, let message = receive(timeout: left) else { return nil }
            if accept(message) { return message }
        }
    }

    /// Closes the socket. Idempotent.
    package func close() { socket.close() }
}

@available(*, unavailable)
extension SIPPeerUDPChannel: Sendable {}
