@_exported import struct VoiceSIPAgent.SIPUserAgentLimits
@_exported import enum VoiceSIPAgent.SIPWebSocketKeepAlive
@_exported import enum VoiceSIPAgent.ConferenceAddressing
import VoiceAddress
import VoiceCore
import VoiceSIP
import VoiceSIPAgent

/// What a service sets and an app does not: who may call it, how much it takes on at once, how
/// it accepts connections, and how it recognises conference rooms. Given to
/// ``VoiceCore/VoiceClient/init(configuration:server:audioDevice:eventLoopGroup:)``.
public struct VoiceServerSettings: Sendable {
    /// Whether a client on a WebSocket transport (`.ws`, `.wss`) also listens for WebSocket
    /// connections on its listen address: browsers and gateways calling it directly (`.wss`
    /// needs a certificate in `VoiceClientConfiguration.tls`). Default false.
    public var acceptsWebSocketConnections = false
    /// IP addresses new calls may come from (a proxy's, a registrar's). When this or
    /// ``trustedTLSNames`` is set, INVITEs from anybody else are answered 403.
    public var trustedAddresses: [TrustedAddress] = []
    /// Names a TLS peer may prove (a DNS subject alternative name of a certificate that
    /// verified): a call over such a connection is admitted.
    public var trustedTLSNames: [TLSName] = []
    /// Credentials a caller must prove with Digest (a 401 challenge); empty: no challenge.
    public var requiredCredentials: [Credential] = []
    /// The realm of those challenges.
    public var realm = "voice"
    /// How many calls and transactions the client takes on at once; beyond them requests are
    /// refused without keeping state (503 with Retry-After).
    public var limits = SIPUserAgentLimits()
    /// Most TCP, TLS and WebSocket connections open at once, inbound and outbound.
    public var maximumConnections = 1024
    /// Most inbound connections from one IP address.
    public var maximumConnectionsPerSource = 32
    /// How keep-alives go over a WebSocket the client opened: Pings (the default) or CRLF.
    public var webSocketKeepAlive = SIPWebSocketKeepAlive.ping
    /// The forms `conference:room` destinations take (and a conference server recognises):
    /// `sip:room@domain;conference` by default.
    public var conferenceAddressing = ConferenceAddressing.uriParameter
    /// Where the client's Insights events go (Twilio's event tables: connection, ICE, DTLS,
    /// quality warnings, feedback); nil (the default): the configuration's logger.
    public var insightsPublisher: (any InsightsPublisher)?

    /// Creates settings; the defaults let anybody who reaches the port call.
    public init() {}

    /// An IP address (v4 or v6), checked when it is made.
    public struct TrustedAddress: Sendable, Hashable, CustomStringConvertible {
        /// The address in its usual text form.
        public let description: String
        /// Reads `text`; throws 31100 when it is not an IP address.
        public init(_ text: String) throws(VoiceError) {
            let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
            guard let address = IPAddress(bare) else {
                throw VoiceError(.malformedRequest, failureReason: "trusted address \(text) is not an IP address")
            }
            description = address.description
        }
    }

    /// A DNS name a certificate may prove, checked when it is made and compared without case.
    public struct TLSName: Sendable, Hashable, CustomStringConvertible {
        /// The name, lower case.
        public let description: String
        /// Reads `text`; throws 31100 when it is not a DNS name (letters, digits, `-` and `.`,
        /// labels of 1–63 characters, at most 253 in all). A wildcard certificate's name
        /// (`*.example.com`) is written as the certificate writes it.
        public init(_ text: String) throws(VoiceError) {
            let name = text.lowercased()
            var labels = name.split(separator: ".", omittingEmptySubsequences: false)
            if labels.count > 2, labels.first == "*" { labels.removeFirst() }
            let valid =
                !name.isEmpty && name.count <= 253
                && labels.allSatisfy { label in
                    (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                        && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
                }
            guard valid else { throw VoiceError(.malformedRequest, failureReason: "TLS name \(text) is not a DNS name") }
            description = name
        }
    }

    /// A user name and password a caller proves with Digest.
    public struct Credential: Sendable, Hashable {
        /// The user name.
        public var username: String
        /// The password.
        public var password: String
        /// Creates a credential.
        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }
    }

    /// Writes the settings into a client configuration's server side.
    func apply(to configuration: inout VoiceClientConfiguration) {
        configuration.acceptsWebSocketConnections = acceptsWebSocketConnections
        configuration.incomingCallPolicy = SIPIncomingCallPolicy(
            trustedSources: trustedAddresses.map(\.description), trustedTLSNames: trustedTLSNames.map(\.description),
            requiredCredentials: requiredCredentials.map { SIPAuthCredentials(username: $0.username, password: $0.password, realm: realm) },
            realm: realm)
        configuration.limits = limits
        configuration.transportSettings.maximumConnections = maximumConnections
        configuration.transportSettings.maximumConnectionsPerSource = maximumConnectionsPerSource
        configuration.transportSettings.webSocketKeepAlive = webSocketKeepAlive
        configuration.conferenceAddressing = conferenceAddressing
        if let insightsPublisher { configuration.publishInsights(to: insightsPublisher) }
    }
}
