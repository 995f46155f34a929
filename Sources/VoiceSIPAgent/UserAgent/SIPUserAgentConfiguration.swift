import NIOCore
import VoiceSupport
import VoiceSIP

/// One SIP identity and how it reaches the network.
public struct SIPUserAgentConfiguration: Sendable {
    /// Our address of record, e.g. `sip:alice@example.com` (From of our requests, To of REGISTER).
    public var identity: SIPNameAddress
    /// Digest (or bearer) credentials for challenges from the registrar, proxies and peers.
    public var credentials: [SIPAuthCredentials]
    /// The transport we listen on and send with by default.
    public var transport: SIPTransportProtocol
    /// The local IP address to listen on (`127.0.0.1`, `::1`, or an interface address).
    public var listenHost: String
    /// The local port; 0 picks a free one.
    public var listenPort: Int
    /// Where every request goes first when set (RFC 3261 §8.1.2 outbound proxy), e.g. `sip:proxy;transport=tcp`.
    public var outboundProxy: SIPURI?
    /// Where REGISTER goes; default the identity's domain.
    public var registrar: SIPURI?
    /// Requested registration lifetime in seconds.
    public var registrationExpires: UInt32
    /// Codecs, DTMF, ptime and encryption policy offered and accepted for calls; address and port are set per call.
    public var media: SDPLocalCapabilities
    /// The User-Agent header value.
    public var userAgent: String?
    /// Transport settings (TLS trust, limits).
    public var transportConfiguration: SIPTransportConfiguration
    /// Transaction timers (T1, T2, T4).
    public var transactionConfiguration: SIPTransactionConfiguration
    /// Send CRLF keep-alives to the outbound proxy or registrar this often; nil disables.
    public var keepAliveInterval: TimeAmount?
    /// How many transactions and calls the agent takes on at once.
    public var limits: SIPUserAgentLimits
    /// Whether SRTP keys (SDES, RFC 4568) may be sent and accepted over UDP or TCP to a peer
    /// that is not on loopback. Off by default: such keys can be read by anyone on the path,
    /// who can then decrypt or forge the media. Use TLS (`sips:` or `transport=tls`) instead;
    /// turn this on only for a trusted network, and a warning is logged once.
    public var allowsKeysOverUnencryptedSignaling: Bool
    /// Who may start a call with us; default anybody.
    public var incomingCallPolicy: SIPIncomingCallPolicy

    /// Creates a configuration.
    public init(
        identity: SIPNameAddress,
        credentials: [SIPAuthCredentials] = [],
        transport: SIPTransportProtocol = .udp,
        listenHost: String = "127.0.0.1",
        listenPort: Int = 0,
        outboundProxy: SIPURI? = nil,
        registrar: SIPURI? = nil,
        registrationExpires: UInt32 = 3600,
        media: SDPLocalCapabilities = SDPLocalCapabilities(address: "127.0.0.1", port: 0),
        userAgent: String? = "VoiceSDK",
        transportConfiguration: SIPTransportConfiguration = SIPTransportConfiguration(),
        transactionConfiguration: SIPTransactionConfiguration = .rfc3261,
        keepAliveInterval: TimeAmount? = .seconds(30),
        limits: SIPUserAgentLimits = SIPUserAgentLimits(),
        allowsKeysOverUnencryptedSignaling: Bool = false,
        incomingCallPolicy: SIPIncomingCallPolicy = .anyone
    ) {
        self.identity = identity
        self.credentials = credentials
        self.transport = transport
        self.listenHost = listenHost
        self.listenPort = listenPort
        self.outboundProxy = outboundProxy
        self.registrar = registrar
        self.registrationExpires = registrationExpires
        self.media = media
        self.userAgent = userAgent
        self.transportConfiguration = transportConfiguration
        self.transactionConfiguration = transactionConfiguration
        self.keepAliveInterval = keepAliveInterval
        self.limits = limits
        self.allowsKeysOverUnencryptedSignaling = allowsKeysOverUnencryptedSignaling
        self.incomingCallPolicy = incomingCallPolicy
    }
}
