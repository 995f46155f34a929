/// A STUN or TURN server as WebRTC and Twilio configure it: a `stun:`, `stuns:`, `turn:` or
/// `turns:` URL (RFC 7064, RFC 7065), e.g. `turn:turn.example.com:3478?transport=tcp`.
package struct ICEServerURL: Hashable, Sendable, CustomStringConvertible {
    package enum Scheme: String, Hashable, Sendable {
        case stun, stuns, turn, turns
    }

    /// How the client reaches the server.
    package enum Transport: String, Hashable, Sendable {
        case udp, tcp
    }

    package var scheme: Scheme
    /// A DNS name, an IPv4 address, or an IPv6 address (without its brackets).
    package var host: String
    package var port: UInt16
    /// UDP for `stun:` and `turn:` unless `?transport=tcp`; TCP (with TLS) for `stuns:` and `turns:`.
    package var transport: Transport

    /// Whether it is a TURN server (relayed candidates) rather than STUN only.
    package var isTURN: Bool { scheme == .turn || scheme == .turns }
    /// Whether the connection to it is TLS (`stuns:`, `turns:`).
    package var usesTLS: Bool { scheme == .stuns || scheme == .turns }

    /// Why a URL was refused.
    package enum ParseError: Error, Hashable, Sendable {
        /// Not `stun:`, `stuns:`, `turn:` or `turns:`.
        case unknownScheme
        /// No host, or a host with characters a host cannot have.
        case badHost
        /// A port that is not 1–65535.
        case badPort
        /// A query other than `?transport=udp|tcp`, or one on a STUN URL.
        case badTransport
    }

    /// Parses `text`.
    /// - Throws: ``ParseError`` saying what is wrong.
    package init(parsing text: String) throws(ParseError) {
        var rest = Substring(text)
        guard let colon = rest.firstIndex(of: ":"), let scheme = Scheme(rawValue: rest[..<colon].lowercased()) else {
            throw .unknownScheme
        }
        rest = rest[rest.index(after: colon)...]
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var host: Substring
        var portText: Substring?
        if rest.first == "[" {
            guard let close = rest.firstIndex(of: "]") else { throw .badHost }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw .badHost }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { throw .badHost }
        } else {
            if let colon = rest.firstIndex(of: ":") {
                portText = rest[rest.index(after: colon)...]
                host = rest[..<colon]
            } else {
                host = rest
            }
            guard !host.isEmpty, host.utf8.count <= 253,
                host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") })
            else { throw .badHost }
        }
        var port: UInt16 = scheme == .stuns || scheme == .turns ? 5349 : 3478
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCIIDigitCharacter), let value = Int(portText),
                (1...65_535).contains(value)
            else { throw .badPort }
            port = UInt16(value)
        }
        var transport: Transport = scheme == .stuns || scheme == .turns ? .tcp : .udp
        if let query {
            guard scheme == .turn || scheme == .turns, query.lowercased().hasPrefix("transport="),
                let chosen = Transport(rawValue: query.dropFirst("transport=".count).lowercased())
            else { throw .badTransport }
            // turns: over UDP would be DTLS to the server, which RFC 7065 leaves out.
            guard !(scheme == .turns && chosen == .udp) else { throw .badTransport }
            transport = chosen
        }
        self.scheme = scheme
        self.host = String(host)
        self.port = port
        self.transport = transport
    }

    package var description: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        let query = isTURN && transport != (usesTLS ? .tcp : .udp) ? "?transport=\(transport.rawValue)" : ""
        return "\(scheme.rawValue):\(host):\(port)\(query)"
    }
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
