#if canImport(Glibc)
    import Glibc
#endif

extension TransportAddress {
    /// The address as a `sockaddr_in` or `sockaddr_in6` in a `sockaddr_storage`, with its
    /// length: what a socket call takes.
    package var sockaddr: (storage: sockaddr_storage, length: socklen_t) {
        var storage = sockaddr_storage()
        let length: Int
        if ip.isIPv6 {
            var v6 = sockaddr_in6()
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &v6.sin6_addr) { $0.copyBytes(from: ip.bytes) }
            withUnsafeBytes(of: v6) { source in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) } }
            length = MemoryLayout<sockaddr_in6>.size
        } else {
            var v4 = sockaddr_in()
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &v4.sin_addr) { $0.copyBytes(from: ip.bytes) }
            withUnsafeBytes(of: v4) { source in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) } }
            length = MemoryLayout<sockaddr_in>.size
        }
        return (storage, socklen_t(length))
    }
}
