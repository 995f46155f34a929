#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 address as the kernel reports it (network byte order).
package struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6.
    package let bytes: [UInt8]

    /// Nil unless `bytes` has 4 or 16 bytes.
    package init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = Array(bytes)
    }

    /// Parses a host as a URI, a Via or an SDP line writes it: an IPv6 address with or without
    /// its brackets, or dotted IPv4; nil for anything else, names included.
    package static func literal(_ host: String) -> IPAddress? {
        IPAddress(host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host)
    }

    /// Parses dotted IPv4 or textual IPv6 (`inet_pton`); nil for anything else, names included.
    package init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.bytes = withUnsafeBytes(of: v6) { Array($0) }
            return
        }
        return nil
    }

    package var isIPv6: Bool { bytes.count == 16 }

    /// 127.0.0.0/8 or ::1.
    package var isLoopback: Bool {
        isIPv6 ? bytes == Array(repeating: 0, count: 15) + [1] : bytes[0] == 127
    }

    /// fe80::/10 (IPv6) or 169.254.0.0/16 (IPv4).
    package var isLinkLocal: Bool {
        isIPv6 ? bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 : bytes[0] == 169 && bytes[1] == 254
    }

    /// Whether the first `prefixLength` bits equal `network`'s (same family only).
    package func isInSubnet(_ network: IPAddress, prefixLength: Int) -> Bool {
        guard network.bytes.count == bytes.count, prefixLength >= 0, prefixLength <= bytes.count * 8 else { return false }
        let whole = prefixLength / 8
        guard bytes.prefix(whole) == network.bytes.prefix(whole) else { return false }
        let rest = prefixLength % 8
        guard rest > 0 else { return true }
        let mask = UInt8(0xFF) << (8 - rest)
        return bytes[whole] & mask == network.bytes[whole] & mask
    }

    /// The wildcard address (0.0.0.0 or ::).
    package var isUnspecified: Bool { bytes.allSatisfy { $0 == 0 } }

    package var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv6 ? AF_INET6 : AF_INET
        let ok = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &text, socklen_t(text.count)) != nil }
        guard ok else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
