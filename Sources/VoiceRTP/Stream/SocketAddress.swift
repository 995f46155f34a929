#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 UDP endpoint, stored as a `sockaddr_storage` so sends need no conversion.
package struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// Why an address could not be built.
    package struct Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
        package var description: String
    }

    package var storage: sockaddr_storage
    /// Length of the valid part of ``storage``.
    package var length: socklen_t

    /// Creates an address from a numeric host (`127.0.0.1`, `::1`, `[::1]`) and a port.
    package init(host: String, port: Int) throws(Error) {
        guard (0...65_535).contains(port) else { throw Error(description: "port \(port) out of range") }
        var h = host
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        var ss = sockaddr_storage()
        if h.contains(":") {
            var a6 = sockaddr_in6()
            a6.sin6_family = sa_family_t(AF_INET6)
            a6.sin6_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET6, h, &a6.sin6_addr) == 1 else { throw Error(description: "not an IPv6 address: \(host)") }
            withUnsafeBytes(of: a6) { src in withUnsafeMutableBytes(of: &ss) { $0.copyMemory(from: src) } }
            self.length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            var a4 = sockaddr_in()
            a4.sin_family = sa_family_t(AF_INET)
            a4.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, h, &a4.sin_addr) == 1 else { throw Error(description: "not an IPv4 address: \(host)") }
            withUnsafeBytes(of: a4) { src in withUnsafeMutableBytes(of: &ss) { $0.copyMemory(from: src) } }
            self.length = socklen_t(MemoryLayout<sockaddr_in>.size)
        }
        self.storage = ss
    }

    /// An empty address (no family), for the kernel to fill in.
    package static var unspecified: SocketAddress { SocketAddress(storage: sockaddr_storage(), length: 0) }

    /// Wraps a kernel-filled address.
    package init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    /// Calls `body` with the address as a `sockaddr` and its length (for `sendto`, `bind`).
    package func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) rethrows -> R {
        var copy = storage
        return try withUnsafePointer(to: &copy) { try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) } }
    }

    /// True for IPv6 addresses.
    package var isIPv6: Bool { storage.ss_family == sa_family_t(AF_INET6) }

    /// True for the wildcard address (`0.0.0.0`, `::`): a socket bound there takes datagrams
    /// sent to any of the host's addresses.
    package var isWildcard: Bool {
        withUnsafeBytes(of: storage) { raw in
            if isIPv6 { return withUnsafeBytes(of: raw.load(as: sockaddr_in6.self).sin6_addr) { $0.allSatisfy { $0 == 0 } } }
            return raw.load(as: sockaddr_in.self).sin_addr.s_addr == 0
        }
    }

    /// Whether `other` has the same host address (the ports may differ).
    package func hasSameHost(as other: SocketAddress) -> Bool {
        guard isIPv6 == other.isIPv6 else { return false }
        return withUnsafeBytes(of: storage) { a in
            withUnsafeBytes(of: other.storage) { b in
                if isIPv6 {
                    return withUnsafeBytes(of: a.load(as: sockaddr_in6.self).sin6_addr) { x in
                        withUnsafeBytes(of: b.load(as: sockaddr_in6.self).sin6_addr) { y in x.elementsEqual(y) }
                    }
                }
                return a.load(as: sockaddr_in.self).sin_addr.s_addr == b.load(as: sockaddr_in.self).sin_addr.s_addr
            }
        }
    }

    /// The port in host order.
    package var port: Int {
        withUnsafeBytes(of: storage) { raw in
            if isIPv6 { return Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)) }
            return Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
        }
    }

    /// The numeric host, without brackets.
    package var host: String {
        var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        return withUnsafeBytes(of: storage) { raw -> String in
            if isIPv6 {
                var a = raw.load(as: sockaddr_in6.self).sin6_addr
                inet_ntop(AF_INET6, &a, &buf, socklen_t(buf.count))
            } else {
                var a = raw.load(as: sockaddr_in.self).sin_addr
                inet_ntop(AF_INET, &a, &buf, socklen_t(buf.count))
            }
            return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    package var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    package static func == (a: SocketAddress, b: SocketAddress) -> Bool {
        guard a.length == b.length else { return false }
        return withUnsafeBytes(of: a.storage) { ra in
            withUnsafeBytes(of: b.storage) { rb in
                ra.prefix(Int(a.length)).elementsEqual(rb.prefix(Int(b.length)))
            }
        }
    }

    package func hash(into h: inout Hasher) {
        withUnsafeBytes(of: storage) { h.combine(bytes: UnsafeRawBufferPointer(rebasing: $0[0..<Int(length)])) }
    }
}
