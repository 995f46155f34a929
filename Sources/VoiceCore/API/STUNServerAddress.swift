/// A STUN server (RFC 5389) a client behind a NAT learns its public address from
/// (``VoiceClientConfiguration/stunServer``): checked when it is made; a host name is resolved
/// when the client starts.
///
/// Accepted forms: `stun.example.com`, `stun.example.com:3478`, `192.0.2.7:3478`,
/// `[2001:db8::7]:3478`, `2001:db8::7` (an IPv6 address without a port), each optionally
/// written as a `stun:` URI (RFC 7064, `stun:stun.example.com:3478`). Without a port,
/// port 3478 applies.
///
/// ```swift
/// configuration.stunServer = try STUNServerAddress("stun.example.com:3478")
/// ```
public struct STUNServerAddress: Sendable, Hashable, CustomStringConvertible {
    /// The port STUN servers listen on when none is given (RFC 5389 §9).
    package static let defaultPort = 3478

    /// The host: a name, an IPv4 address, or an IPv6 address without brackets.
    public let host: String
    /// The UDP port, 1–65535.
    public let port: Int

    /// Parses and checks `string`.
    /// - Throws: ``VoiceError`` 31100 ``VoiceError/Code/malformedRequest`` when `string` is
    ///   empty, has control characters or spaces, has a port of 0 or above 65535, is a URI of
    ///   another scheme (`sip:`, `turn:`), has parameters, or is no host at all; its
    ///   `failureReason` says which.
    public init(_ string: String) throws(VoiceError) {
        let what = "STUN server"
        let text = string.lowercased().hasPrefix("stun:") ? String(string.dropFirst(5)) : string
        let uri = try ServerAddressParser.uri(
            text, what: what, forms: "host, host:port or a stun: URI", allowsSIPURI: false)
        guard uri.parameters.isEmpty else { throw ServerAddressParser.invalid(what, string, "has parameters") }
        host = uri.host
        port = uri.port ?? Self.defaultPort
    }

    /// `host:port`, with an IPv6 host in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
