import VoiceAddress

#if canImport(Glibc)
    import Glibc
#endif

// The socket edge: ``SocketAddress`` is what the kernel reads and writes (a `sockaddr_storage`);
// the pure layers (STUN, ICE, TURN, the media path) speak ``TransportAddress``. These two
// conversions, byte for byte with no text in between, are the only way across.

extension SocketAddress {
    /// The socket address of a transport address.
    package init(_ address: TransportAddress) {
        let converted = address.sockaddr
        self.init(storage: converted.storage, length: converted.length)
    }
}

extension TransportAddress {
    /// The transport address of a socket address; nil for one that is neither IPv4 nor IPv6
    /// (``SocketAddress/unspecified``).
    package init?(_ address: SocketAddress) {
        let family = address.storage.ss_family
        let parts: (bytes: [UInt8], port: UInt16)? = withUnsafeBytes(of: address.storage) { raw in
            if family == sa_family_t(AF_INET6) {
                let v6 = raw.load(as: sockaddr_in6.self)
                return (withUnsafeBytes(of: v6.sin6_addr) { Array($0) }, UInt16(bigEndian: v6.sin6_port))
            }
            if family == sa_family_t(AF_INET) {
                let v4 = raw.load(as: sockaddr_in.self)
                return (withUnsafeBytes(of: v4.sin_addr) { Array($0) }, UInt16(bigEndian: v4.sin_port))
            }
            return nil
        }
        guard let parts, let ip = IPAddress(bytes: parts.bytes) else { return nil }
        self.init(ip: ip, port: parts.port)
    }
}
