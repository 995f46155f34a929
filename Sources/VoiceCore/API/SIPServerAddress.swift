import VoiceSIP

/// Where the client sends its SIP requests first (``VoiceClientConfiguration/outboundProxy``) or
/// registers (``VoiceClientConfiguration/registrar``): checked when it is made, so a bad setting
/// fails where the configuration is built rather than when a call is placed.
///
/// Accepted forms:
/// - `proxy.example.com` or `192.0.2.5`: a host; `sip:` is implied and the port is the
///   transport's default;
/// - `proxy.example.com:5080`: a host and port;
/// - `[2001:db8::5]:5060`, `[2001:db8::5]`, or `2001:db8::5` without a port: an IPv6 address;
/// - `sip:proxy.example.com;transport=tcp`, `sips:proxy.example.com:5061;lr`: a SIP or SIPS URI,
///   whose parameters are kept (`transport=tls` or `sips:` sends over TLS).
///
/// ```swift
/// let proxy = try SIPServerAddress("sip:proxy.example.com;transport=tls")
/// ```
public struct SIPServerAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address as a SIP URI.
    package let uri: SIPURI

    /// Parses and checks `string`.
    /// - Throws: ``VoiceError`` 31100 ``VoiceError/Code/malformedRequest`` when `string` is
    ///   empty, has control characters or spaces, has a port of 0 or above 65535, a user part
    ///   or URI headers, is another scheme's URI, or is no host at all; its `failureReason`
    ///   says which.
    public init(_ string: String) throws(VoiceError) {
        uri = try ServerAddressParser.uri(
            string, what: "SIP server address", forms: "host, host:port or a sip:/sips: URI", allowsSIPURI: true)
    }

    /// The host: a name, an IPv4 address, or an IPv6 address without brackets.
    public var host: String { uri.host }

    /// The port, when one was given; otherwise the transport's default (5060, 5061 for TLS) applies.
    public var port: Int? { uri.port }

    /// Whether requests to this server go over TLS: a `sips:` URI or `transport=tls`.
    public var requiresTLS: Bool { uri.scheme == .sips || uri.transport == "tls" }

    /// The address as a SIP URI, e.g. `sip:proxy.example.com:5080;transport=tcp`.
    public var description: String { uri.description }
}
