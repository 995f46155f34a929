import VoiceNetwork
import VoiceMediaTypes
import CoreMetrics
import Logging
import VoiceMedia
import VoiceSIP
import VoiceSIPAgent

/// One SIP identity of the SDK and how it reaches the network.
public struct VoiceClientConfiguration: Sendable {
    /// Our user name (`alice`): the user part of our address `sip:alice@domain`.
    public var identity: String
    /// The SIP domain (`example.com`, or an IP for a server-less setup); destinations without a
    /// domain (`bob`, `+14155550101`, `conference:room`) are placed in it.
    public var domain: String
    /// The signaling transport. Default UDP. A `ws://` or `wss://` ``outboundProxy`` or
    /// ``registrar`` makes it that WebSocket (RFC 7118): the client then connects out and is
    /// reached over its connection (Via and Contact carry a `.invalid` host, Contact `;ob`).
    public var transport: SIPTransportProtocol
    /// With transport `.ws` or `.wss`: whether the client also listens for WebSocket
    /// connections on ``listenHost``:``listenPort`` (browsers and gateways calling it directly;
    /// `.wss` needs a server certificate in ``tls``), its Contact then that address. Default
    /// false: a WebSocket client only.
    package var acceptsWebSocketConnections = false
    /// The local address to listen on and put in Contact and SDP. Default `127.0.0.1`. Not
    /// used with ``addressSelection`` `.automatic`.
    public var listenHost: String
    /// Whether the advertised address is ``listenHost`` (the default) or follows the host's
    /// networks (see ``AddressSelection/automatic``).
    public var addressSelection: AddressSelection = .listenHost
    /// With ``AddressSelection/automatic``: the type of an interface by name, over what the
    /// kernel's facts say (`["usb0": .cellular]` for a phone's tethering; `voicecall --interface-type`).
    package var interfaceTypes: [String: NetworkInterfaceType] = [:]
    /// A STUN server (RFC 5389) for a client behind a NAT: each call's media port, and over UDP
    /// the SIP socket, learn the address and port the NAT gives them, which SDP, Contact and Via
    /// then carry; learned again after every network change. Its host name is resolved when the
    /// client is created. When the server does not answer (1.5 s) the local address is used.
    /// Default none: calls through a NAT then rely on the peer following our packets (rport,
    /// symmetric RTP).
    public var stunServer: STUNServerAddress?
    /// The local SIP port; 0 picks a free one.
    public var listenPort: Int
    /// Every request goes here first when set (`sip:proxy.example.com;transport=tls`).
    ///
    /// A host name is located as RFC 3263 says (NAPTR, then SRV by priority and weight, then
    /// A/AAAA; a URI naming its transport or port skips the steps it settles), and a request
    /// moves on to the next server on a transport error, a 503 or 4 s without any answer.
    /// Registration and a call's later requests follow the server that answered.
    public var outboundProxy: SIPServerAddress?
    /// Proxies tried in order once every server of ``outboundProxy`` has failed: the SIP form
    /// of Twilio's edge fallback (`["sip:edge-a.example.com", "sip:edge-b.example.com"]`).
    /// Only used with an ``outboundProxy``. Default none.
    public var fallbackProxies: [SIPServerAddress] = []
    /// The DNS servers host names are looked up with (`"192.0.2.53"`, `"[2001:db8::53]:5353"`),
    /// as pjsip's `nameserver`; empty (the default): the system's, from `/etc/resolv.conf`.
    /// Names in `/etc/hosts` are used as it gives them either way. An entry that is not an IP
    /// address with an optional port stops the client being created (``VoiceError``).
    public var nameServers: [String] = []
    /// The registrar; nil registers with the domain when ``VoiceClient/register(accessToken:notificationDelegate:delegateQueue:callMessageDelegate:completion:)``
    /// is called with ``registers`` true.
    public var registrar: SIPServerAddress?
    /// Whether `register(...)` sends REGISTER. False: only listen on the bound address.
    public var registers: Bool
    /// Digest credentials answering 401/407 challenges (an access token, when the app gives one,
    /// answers Bearer challenges).
    public var username: String?
    /// The digest password.
    public var password: String?
    /// TLS trust, our certificate and pinned server keys (certificates are verified by default).
    public var tls = TLSSettings()
    /// The transport's limits and timeouts (connections, idle and message timeouts,
    /// WebSocket keep-alives), and TLS configurations that ``tls`` adds to.
    package var transportSettings = SIPTransportConfiguration()
    /// Where Insights events go; nil (the default): the ``logger``, at each event's level. A
    /// service sets its own publisher through `VoiceServerSettings`.
    package var insightsSink: InsightsSink?
    /// The SDK's logger.
    public var logger: Logger
    /// The media engine calls run on.
    package var mediaEngine: MediaEngine = .shared
    /// When a call starts reconnecting and how long it may try: media silence threshold, media
    /// and signaling reconnection timeouts. Default 3 s, 30 s, 30 s.
    public var reconnection: CallReconnectionPolicy
    /// How many calls and transactions the client takes on at once (128 calls per core, half of
    /// them ringing per caller address, by default); beyond them requests are refused without
    /// keeping state. A service sets them through `VoiceServerSettings`.
    package var limits = SIPUserAgentLimits()
    /// Who may call this client: by default anybody who reaches its port. Behind a proxy, list
    /// the proxy's address in `trustedSources`, or over TLS the name its certificate proves in
    /// `trustedTLSNames`; without one, require callers' credentials
    /// (a Digest challenge). Refused callers get 403 or 401 whichever user they call.
    package var incomingCallPolicy = SIPIncomingCallPolicy.anyone
    /// The User-Agent header of our requests; nil sends none. The default names the SDK
    /// without its version, which would only help a scanner pick an exploit. No `Server`
    /// header is sent in responses.
    public var userAgent: String? = "VoiceSDK"
    /// How long an outgoing call may ring unanswered, from its INVITE, before the SDK cancels
    /// it: the call fails with 31480 and ``CallEndCause/noAnswer``. Nil: as long as the callee's
    /// side lets it ring. Default 60 s.
    public var ringTimeout: Duration? = .seconds(60)
    /// How `conference:room` destinations are addressed on the server in use. Default
    /// ``ConferenceAddressing/uriParameter`` (`sip:room@domain;conference`).
    package var conferenceAddressing = ConferenceAddressing.uriParameter
    /// Ringback and busy tones played into the device of an outgoing call; nil (the default,
    /// for servers): none.
    public var progressTones: CallProgressTones?
    /// Thresholds of the Sinch call-quality events (``CallDelegate/callDidEmitCallQualityEvent(_:event:)``).
    package var qualityEvents = CallQualityEventConfiguration()
    /// Where the client's metrics go (calls, setups and failures by code, packets, loss,
    /// jitter, MOS, SRTP failures, jitter-buffer delay: see the README's table). Nil: the
    /// process-wide `MetricsSystem` of swift-metrics, which the app bootstraps with any backend
    /// (Prometheus, StatsD, OpenTelemetry), and which records nothing until it does.
    public var metricsFactory: (any MetricsFactory)?
    /// How calls' media is encrypted and keyed: ICE + DTLS-SRTP, SDES, or whichever the peer has
    /// (the default; see ``MediaSecurity`` for what each costs and when keys may travel in
    /// clear-text signaling).
    public var mediaSecurity = MediaSecurity.automatic
    /// STUN and TURN servers for DTLS-SRTP calls' ICE, and the relay-only policy. Default none:
    /// host candidates (and the server-reflexive one of ``stunServer``).
    public var iceOptions = ICEOptions()
    /// A PEM file of CA certificates trusted for `turns:` servers besides the system's (a test's
    /// own CA).
    package var turnTrustedCertificatesFile: String?
    /// The certificate DTLS-SRTP calls prove this client with; nil: the client makes one when
    /// it starts (a new fingerprint each run).
    public var dtlsIdentity: DTLSIdentity?
    /// The SRTP suites offered and accepted, in order; nil: every suite libsrtp supports,
    /// AEAD first (for benchmarks that must match a peer's suite).
    package var srtpSuites: [SRTPSuite]?
    /// Whether calls offer and accept RFC 4733 `telephone-event`; without it digits go both
    /// ways as SIP INFO `application/dtmf-relay` (what the INFO tests against real peers use).
    package var telephoneEvents = true
    /// The RFC 4028 session interval calls ask for, in seconds (pjsip's and linphone's 1800;
    /// at least 90); nil: no session timers.
    package var sessionExpires: Int? = 1_800
    /// The smallest session interval calls accept (RFC 4028 Min-SE, pjsip's `timerMinSESec`):
    /// 90, the RFC's floor; tests lower it to see a refresh within seconds.
    package var sessionMinimumSE = 90
    /// How long a request waits for any answer from one server before it moves to the next,
    /// when there is a next (``SIPUserAgentConfiguration/failoverTimeout``): 4 s.
    package var failoverTimeout: Duration? = .seconds(4)

    /// Creates a configuration. The server addresses are checked as they are made
    /// (`try SIPServerAddress("sip:proxy.example.com;transport=tls")`); the rest is checked
    /// when the client is created.
    public init(
        identity: String, domain: String, transport: SIPTransportProtocol = .udp, listenHost: String = "127.0.0.1",
        listenPort: Int = 0, outboundProxy: SIPServerAddress? = nil, registrar: SIPServerAddress? = nil, registers: Bool = true,
        username: String? = nil, password: String? = nil, tls: TLSSettings = TLSSettings(),
        logger: Logger = Logger(label: "voice"), reconnection: CallReconnectionPolicy = CallReconnectionPolicy()
    ) {
        self.identity = identity
        self.domain = domain
        self.transport = transport
        self.listenHost = listenHost
        self.listenPort = listenPort
        self.outboundProxy = outboundProxy
        self.registrar = registrar
        self.registers = registers
        self.username = username
        self.password = password
        self.tls = tls
        self.logger = logger
        self.reconnection = reconnection
    }
}
