import VoiceICE

/// A STUN or TURN server calls' ICE uses, as WebRTC's `RTCIceServer` and Twilio's
/// `TVOIceServer` give it: a `stun:`, `turn:` or `turns:` URL (RFC 7064, RFC 7065) and, for
/// TURN, the long-term credential.
///
/// ```swift
/// configuration.iceOptions.servers = [
///     try ICEServer("turn:turn.example.com:3478", username: "alice", password: "s3cret"),
/// ]
/// ```
public struct ICEServer: Sendable, Hashable, CustomStringConvertible {
    /// The URL, as given.
    public let url: String
    /// The TURN username (nil for STUN).
    public let username: String?
    /// The TURN credential (nil for STUN).
    public let password: String?
    let parsed: ICEServerURL

    /// Checks `url` and the credential.
    /// - Throws: ``VoiceError`` 31100 ``VoiceError/Code/malformedRequest`` for a URL that is not
    ///   `stun:`, `stuns:`, `turn:` or `turns:` with a valid host, port and `?transport=`, and
    ///   for a TURN URL without a username and password; its `failureReason` says which.
    public init(_ url: String, username: String? = nil, password: String? = nil) throws(VoiceError) {
        do {
            parsed = try ICEServerURL(parsing: url)
        } catch {
            throw VoiceError(.malformedRequest, failureReason: "ICE server \(url): \(Self.reason(error))")
        }
        if parsed.isTURN {
            guard let username, !username.isEmpty, let password, !password.isEmpty else {
                throw VoiceError(.malformedRequest, failureReason: "ICE server \(url): a TURN server needs a username and a password")
            }
        }
        self.url = url
        self.username = username
        self.password = password
    }

    /// Whether it is a TURN server (relayed candidates) rather than STUN only.
    package var isTURN: Bool { parsed.isTURN }

    public var description: String { parsed.description }

    private static func reason(_ error: ICEServerURL.ParseError) -> String {
        switch error {
        case .unknownScheme: "not a stun:, stuns:, turn: or turns: URL"
        case .badHost: "no valid host"
        case .badPort: "a port outside 1-65535"
        case .badTransport: "a transport other than ?transport=udp or tcp (turns: is TCP only)"
        }
    }

    public static func == (a: ICEServer, b: ICEServer) -> Bool {
        a.url == b.url && a.username == b.username && a.password == b.password
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(username)
    }
}

/// Which ICE candidates calls use, as WebRTC's `iceTransportPolicy` and Twilio's
/// `TVOIceTransportPolicy`.
public enum ICETransportPolicy: Sendable, Hashable {
    /// Host, server-reflexive and relayed candidates: the most direct path that works.
    case all
    /// Only the TURN relay: media always goes through the TURN server, and the SDP never names
    /// the host's own addresses. A call whose relay cannot be allocated fails with 53405.
    case relay
}

/// The ICE servers and policy of DTLS-SRTP calls (``MediaSecurity/dtls``, and
/// ``MediaSecurity/automatic`` toward WebRTC peers), as Twilio's `TVOIceOptions`.
///
/// Each call allocates one relay before its offer or answer is written: on the `turn:` servers
/// over UDP first, then on those with `?transport=tcp`, then on the `turns:` ones (RFC 8656
/// over TCP and TLS, for networks that block UDP or pass only TLS; the certificate is checked
/// against the system's trust store and the URL's host), each tried for at most 2 s until one
/// grants it. A `stun:` server stands in for ``VoiceClientConfiguration/stunServer`` when that
/// is not set.
public struct ICEOptions: Sendable, Hashable {
    /// STUN and TURN servers, in order of preference.
    public var servers: [ICEServer]
    /// Which candidates are used. Default ``ICETransportPolicy/all``.
    public var transportPolicy: ICETransportPolicy

    public init(servers: [ICEServer] = [], transportPolicy: ICETransportPolicy = .all) {
        self.servers = servers
        self.transportPolicy = transportPolicy
    }
}
