import VoiceAddress
import VoiceSTUN
import VoiceICE
import NIOCore
import VoiceSupport
import VoiceNetwork
import VoiceSIP

/// One SIP identity and how it reaches the network.
package struct SIPUserAgentConfiguration: Sendable {
    /// Our address of record, e.g. `sip:alice@example.com` (From of our requests, To of REGISTER).
    package var identity: SIPNameAddress
    /// Digest (or bearer) credentials for challenges from the registrar, proxies and peers.
    package var credentials: [SIPAuthCredentials]
    /// The transport we listen on and send with by default.
    package var transport: SIPTransportProtocol
    /// The local IP address to listen on (`127.0.0.1`, `::1`, an interface address, or the
    /// wildcard `0.0.0.0` / `::` with ``advertisedHost`` set).
    package var listenHost: String
    /// The address put in Contact, Via and SDP `c=` when it is not the one bound: with a
    /// wildcard ``listenHost``, the preferred interface's address, which ``SIPUserAgent/moveLocalAddress(to:)``
    /// changes when the host changes networks. Media sockets then bind the wildcard too, so
    /// neither signaling nor media needs a new socket to move. Nil: the bound address.
    package var advertisedHost: String?
    /// The wildcard call media binds with an ``advertisedHost``, when not ``listenHost``'s: `::`
    /// gives each call one port that carries both families (host candidates on IPv4 and IPv6).
    package var mediaListenHost: String?
    /// The local port; 0 picks a free one.
    package var listenPort: Int
    /// With a WebSocket ``transport``: whether to listen for WebSocket connections on
    /// ``listenHost``:``listenPort`` too (browsers and gateways calling us directly; `.wss`
    /// needs a server certificate). False (the default): a WebSocket client only, as RFC 7118
    /// §5 describes one: Via and Contact carry a `.invalid` host, Contact `;ob`, and requests
    /// reach us over the connection we opened.
    package var acceptsWebSocketConnections = false
    /// Where every request goes first when set (RFC 3261 §8.1.2 outbound proxy), e.g. `sip:proxy;transport=tcp`.
    package var outboundProxy: SIPURI?
    /// Proxies tried in order when every target of ``outboundProxy`` fails (the SIP form of
    /// an edge fallback list); each is located as RFC 3263 says.
    package var fallbackProxies: [SIPURI] = []
    /// The name servers server location asks, and how long it waits; default the system's.
    package var dns = DNSResolver.Settings()
    /// Answers server location's lookups instead of name servers (tests); nil: a
    /// ``DNSResolver`` with ``dns``.
    package var dnsLookup: (any DNSLookup)?
    /// How long a request waits for any answer from a target before it moves to the next one,
    /// when there is a next one (a transport error or a 503 moves it at once); nil: only the
    /// transaction's own timeout (32 s) does. Default 4 s: over UDP, four sends of the request.
    package var failoverTimeout: Duration? = .seconds(4)
    /// Where REGISTER goes; default the identity's domain.
    package var registrar: SIPURI?
    /// Requested registration lifetime in seconds.
    package var registrationExpires: UInt32
    /// Codecs, DTMF, ptime and encryption policy offered and accepted for calls; address and port are set per call.
    package var media: SDPLocalCapabilities
    /// The User-Agent header value.
    package var userAgent: String?
    /// Transport settings (TLS trust, limits).
    package var transportConfiguration: SIPTransportConfiguration
    /// Transaction timers (T1, T2, T4).
    package var transactionConfiguration: SIPTransactionConfiguration
    /// Keep-alives to the outbound proxy or registrar that expect an answer (CRLF ping/pong on
    /// TCP and TLS, OPTIONS on UDP), and when an unanswered one means the path failed; nil disables.
    package var flowLiveness: SIPFlowLiveness.Configuration?
    /// A STUN server (RFC 5389) that tells the UDP SIP socket's and each media port's
    /// server-reflexive address, advertised instead of the local one (behind a NAT); nil: none.
    package var stunServer: TransportAddress?
    /// RFC 4028 session timers for every call (``SIPSessionTimer``): 1800 s, Min-SE 90 by
    /// default; nil turns them off.
    package var sessionTimer: SIPSessionTimer.Settings? = SIPSessionTimer.Settings()
    /// RFC 3262 reliable provisional responses and PRACK, both roles
    /// (``SIPInviteSession/Configuration/reliableProvisionals``); on by default.
    package var reliableProvisionals = true
    /// TURN servers (RFC 8656) each DTLS-SRTP call's media port allocates a relayed ICE
    /// candidate on: the first that grants one, tried in order; empty: none.
    package var turnServers: [TURNServer] = []
    /// Which candidates DTLS-SRTP calls offer: with `.relay`, only the relayed one (and a call
    /// whose relay cannot be allocated fails).
    package var candidatePolicy: ICECandidatePolicy = .all
    /// How many transactions and calls the agent takes on at once.
    package var limits: SIPUserAgentLimits
    /// Whether SRTP keys (SDES, RFC 4568) may be sent and accepted over UDP or TCP to a peer
    /// that is not on loopback. Off by default: such keys can be read by anyone on the path,
    /// who can then decrypt or forge the media. Use TLS (`sips:` or `transport=tls`) instead;
    /// turn this on only for a trusted network, and a warning is logged once.
    package var allowsKeysOverUnencryptedSignaling: Bool
    /// Who may start a call with us; default anybody.
    package var incomingCallPolicy: SIPIncomingCallPolicy
    /// The media engine's current load (0...1), read for every new incoming call and OPTIONS
    /// against ``SIPUserAgentLimits/maximumMediaLoad``; must be cheap (an atomic read).
    package var mediaLoad: @Sendable () -> Double = { 0 }

    /// Creates a configuration.
    package init(
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
        flowLiveness: SIPFlowLiveness.Configuration? = SIPFlowLiveness.Configuration(),
        limits: SIPUserAgentLimits = SIPUserAgentLimits(),
        allowsKeysOverUnencryptedSignaling: Bool = false,
        incomingCallPolicy: SIPIncomingCallPolicy = .anyone
    ) {
        self.identity = identity
        self.credentials = credentials
        self.transport = transport
        self.listenHost = listenHost
        self.advertisedHost = nil
        self.listenPort = listenPort
        self.outboundProxy = outboundProxy
        self.registrar = registrar
        self.registrationExpires = registrationExpires
        self.media = media
        self.userAgent = userAgent
        self.transportConfiguration = transportConfiguration
        self.transactionConfiguration = transactionConfiguration
        self.flowLiveness = flowLiveness
        self.limits = limits
        self.allowsKeysOverUnencryptedSignaling = allowsKeysOverUnencryptedSignaling
        self.incomingCallPolicy = incomingCallPolicy
    }
}
