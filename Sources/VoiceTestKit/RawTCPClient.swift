#if canImport(Glibc)
    import Glibc
#endif
import Foundation

/// A plain blocking-or-not TCP client socket, bound to a chosen loopback source address, for
/// tests that must behave as no well-mannered client does: connect and stay silent, trickle
/// bytes, or send without ever reading.
package final class RawTCPClient {
    package let fd: Int32

    /// Connects from `sourceHost` (any port) to `host:port`, with a small receive buffer if asked
    /// (a client that reads nothing then fills it soon); nil if the connection fails.
    package init?(from sourceHost: String = "127.0.0.1", to host: String, port: Int, receiveBuffer: Int32? = nil) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var source = sockaddr_in()
        source.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, sourceHost, &source.sin_addr)
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &target.sin_addr)
        let bound = withUnsafePointer(to: &source) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let connected = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, connected == 0 else {
            Glibc.close(fd)
            return nil
        }
    }

    deinit { Glibc.close(fd) }

    /// Writes what the socket takes now without blocking; returns the bytes taken (0 when full,
    /// -1 when the connection is gone).
    @discardableResult
    package func sendNow(_ bytes: [UInt8]) -> Int {
        let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        if n < 0 { return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1 }
        return n
    }

    /// Whether the server has closed (or reset) the connection, waiting up to `timeout`.
    package func isClosedByPeer(within timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        repeat {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 20) > 0 {
                let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if n == 0 || (n < 0 && errno != EAGAIN) { return true }
            }
        } while Date() < deadline
        return false
    }

    /// Reads what has arrived within `timeout` as text.
    package func receiveText(within timeout: TimeInterval, until marker: String) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline, !text.contains(marker) {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 20) > 0 {
                let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if n <= 0 { break }
                text += String(decoding: buffer[0..<n], as: UTF8.self)
            }
        }
        return text
    }

    /// Reads exactly `count` bytes within `timeout`; fewer when the time runs out or the
    /// connection closes.
    package func receiveBytes(_ count: Int, within timeout: TimeInterval) -> [UInt8] {
        let deadline = Date().addingTimeInterval(timeout)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline, bytes.count < count {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 20) > 0 {
                let n = recv(fd, &buffer, min(buffer.count, count - bytes.count), Int32(MSG_DONTWAIT))
                if n <= 0 { break }
                bytes += buffer[0..<n]
            }
        }
        return bytes
    }
}
