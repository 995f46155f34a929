/// An `a=candidate` value (RFC 8839 §5.1): one ICE candidate of a media section.
///
/// `<foundation> <component-id> <transport> <priority> <address> <port> typ <type>
/// [raddr <address> rport <port>] *(<extension-name> <extension-value>)`. Addresses may be IP
/// addresses or names (browsers hide host addresses behind mDNS `.local` names); unknown
/// extensions (`generation`, `network-id`, `ufrag`…) are kept in order so the value round-trips.
package struct SDPICECandidate: Hashable, Sendable {
    /// The candidate's type (RFC 8445 §5.1.1).
    package enum Kind: String, Hashable, Sendable {
        case host
        case serverReflexive = "srflx"
        case peerReflexive = "prflx"
        case relayed = "relay"
    }

    /// 1–32 ice-chars: candidates with the same foundation share a base and a server.
    package var foundation: String
    /// 1 for RTP (or RTP and RTCP multiplexed), 2 for RTCP.
    package var component: Int
    /// `UDP` or `TCP` as written (compared without case).
    package var transport: String
    package var priority: UInt32
    /// The IP address or name.
    package var address: String
    package var port: UInt16
    package var kind: Kind
    /// The related address and port (`raddr`/`rport`) of a reflexive or relayed candidate.
    package var relatedAddress: String?
    package var relatedPort: UInt16?
    /// Extension attributes after the type, as name/value pairs in order (`tcptype`, `generation`…).
    package var extensions: [(name: String, value: String)]

    package init(
        foundation: String, component: Int, transport: String, priority: UInt32, address: String, port: UInt16, kind: Kind,
        relatedAddress: String? = nil, relatedPort: UInt16? = nil, extensions: [(name: String, value: String)] = []
    ) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.kind = kind
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    /// Whether the transport is UDP.
    package var isUDP: Bool { transport.uppercased() == "UDP" }

    /// The `tcptype` extension of a TCP candidate (RFC 6544): `active`, `passive` or `so`.
    package var tcpType: String? { extensions.first { $0.name == "tcptype" }?.value }

    /// Parses the text after `a=candidate:`; nil if it does not follow the grammar.
    package init?(parsing text: Substring) {
        var reader = SDPTextReader(text)
        let foundation = reader.readToken()
        guard (1...32).contains(foundation.utf8.count), foundation.utf8.allSatisfy(Self.isICEChar) else { return nil }
        guard reader.consumeSpace(), let component = reader.readDecimal(maxDigits: 3), (1...256).contains(component) else { return nil }
        guard reader.consumeSpace() else { return nil }
        let transport = reader.readToken()
        guard !transport.isEmpty, transport.utf8.allSatisfy(Self.isTokenChar) else { return nil }
        guard reader.consumeSpace(), let priority = reader.readDecimal(maxDigits: 10), priority >= 1, priority <= UInt64(UInt32.max) else {
            return nil
        }
        guard reader.consumeSpace() else { return nil }
        let address = reader.readToken()
        guard Self.isAddress(address) else { return nil }
        guard reader.consumeSpace(), let port = reader.readDecimal(maxDigits: 5), port <= 65535 else { return nil }
        guard reader.consumeSpace(), reader.readToken() == "typ", reader.consumeSpace(), let kind = Kind(rawValue: String(reader.readToken())) else {
            return nil
        }
        var relatedAddress: String?
        var relatedPort: UInt16?
        var extensions: [(name: String, value: String)] = []
        while reader.consumeSpace() {
            let name = reader.readToken()
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenChar), reader.consumeSpace() else { return nil }
            let value = reader.readToken()
            guard !value.isEmpty else { return nil }
            switch name {
            case "raddr" where relatedAddress == nil && extensions.isEmpty:
                guard Self.isAddress(value) else { return nil }
                relatedAddress = String(value)
            case "rport" where relatedAddress != nil && relatedPort == nil && extensions.isEmpty:
                guard let port = SDPTextReader.decimal(value, maxDigits: 5), port <= 65535 else { return nil }
                relatedPort = UInt16(port)
            case "raddr", "rport":
                return nil
            default:
                extensions.append((String(name), String(value)))
            }
        }
        guard reader.isAtEnd, (relatedAddress == nil) == (relatedPort == nil) else { return nil }
        self.init(
            foundation: String(foundation), component: Int(component), transport: String(transport), priority: UInt32(priority),
            address: String(address), port: UInt16(port), kind: kind, relatedAddress: relatedAddress, relatedPort: relatedPort,
            extensions: extensions)
    }

    /// The attribute value, as after `a=candidate:`.
    package var value: String {
        var parts = [foundation, String(component), transport, String(priority), address, String(port), "typ", kind.rawValue]
        if let relatedAddress, let relatedPort { parts += ["raddr", relatedAddress, "rport", String(relatedPort)] }
        for (name, value) in extensions { parts += [name, value] }
        return parts.joined(separator: " ")
    }

    package static func == (a: SDPICECandidate, b: SDPICECandidate) -> Bool { a.value == b.value }
    package func hash(into hasher: inout Hasher) { hasher.combine(value) }

    /// ice-char: ALPHA / DIGIT / "+" / "/" (RFC 8839 §5.1).
    static func isICEChar(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2B || byte == 0x2F
    }

    /// A token character (RFC 8866 §9): visible ASCII but a few separators.
    private static func isTokenChar(_ byte: UInt8) -> Bool {
        (0x21...0x7E).contains(byte) && ![0x22, 0x28, 0x29, 0x2C, 0x2F, 0x3A, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x40, 0x5B, 0x5C, 0x5D, 0x7B, 0x7D].contains(byte)
    }

    /// An IPv4 or IPv6 address or a host name: letters, digits and `.:-_%`, at most 255 bytes.
    private static func isAddress(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.count <= 255
            && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || [0x2E, 0x3A, 0x2D, 0x5F, 0x25].contains($0) }
    }
}
