import VoiceAddress
import VoiceSTUN
import VoiceICE
import Dispatch
import Logging
import NIOCore
import NIOPosix
import VoiceNetwork
import VoiceSupport
import VoiceDNS
import VoiceSIP

/// A SIP user agent: binds the transport layer, the transaction table, registration and INVITE
/// sessions, and performs what those pure state machines ask (send, start timers, report).
///
/// Every piece of state lives on the transport's event loop; public methods may be called from
/// any thread and hop onto it. Events are delivered on that loop through `onEvent`; keep the
/// handler short and hop elsewhere for real work.
package final class SIPUserAgent: @unchecked Sendable {
    // @unchecked: all stored vars are touched on `eventLoop` only.

    /// The configuration.
    package let configuration: SIPUserAgentConfiguration
    /// The loop everything runs on.
    package var eventLoop: EventLoop { transport.eventLoop }

    package let transport: any SIPTransport
    let logger: Logger
    package let clock: any MediaClock
    let resolver: SIPTargetResolver
    let onEvent: @Sendable (SIPUserAgentEvent) -> Void
    var table: SIPTransactionTable<SIPTransactionPayload>
    var tableTimer: Scheduled<Void>?
    var tableTimerDeadline: MediaTime?
    var localEndpoint: SIPTransportEndpoint?
    var clientOwners: [SIPTransactionKey: (owner: SIPTransactionOwner, request: SIPRequest)] = [:]
    /// Where each client transaction may fail over to (``SIPFailover``).
    var failovers: [SIPTransactionKey: SIPFailover] = [:]
    /// The branch an INVITE that failed over now has, by the branch it was first sent with.
    var rebranchedInvites: [String: String] = [:]
    /// The target that last answered, by what it was located for: later requests (a
    /// registration's refreshes, a call's next requests) go there first.
    var serverPins: [SIPTargetResolver.Target: SIPServerTarget] = [:]
    /// Servers whose IPv6 and IPv4 addresses are being raced, by what they were located for.
    var races: [SIPTargetResolver.Target: SIPServerRace] = [:]
    /// The race and target of each probe out.
    var probes: [Int: (pin: SIPTargetResolver.Target, target: SIPServerTarget)] = [:]
    var nextProbeID = 0
    /// DNS answers and failures, kept for their TTL.
    var dnsCache = DNSCache()
    /// The lookups server location makes; made on first use (``dns``).
    var dnsLookupStorage: (any DNSLookup)?
    var calls: [SIPCallHandle: SIPUserAgentCall] = [:]
    var callsByDialog: [String: SIPCallHandle] = [:]
    var callsByServerInvite: [SIPTransactionKey: SIPCallHandle] = [:]
    /// Incoming INVITEs admitted while their media port is reserved (off the loop), by server
    /// transaction; `true` once a CANCEL arrived for one.
    var invitesAwaitingMediaPort: [SIPTransactionKey: Bool] = [:]
    /// Where blocking work runs (binding a socket to reserve a media port), never on the loop.
    /// Serial: a bind takes microseconds, and a burst of 50 call setups on a concurrent queue
    /// woke a thread each, which took the cores from the loop.
    let blockingQueue = DispatchQueue(label: "voice-sip-blocking")
    /// Finds a local RTP port for a new call; nil binds one on ``blockingQueue``.
    let mediaPortSource: SIPMediaPortSource?
    /// The address we advertise now (Contact, Via, SDP), when not the bound one; starts as the
    /// configuration's and follows ``moveLocalAddress(to:)``.
    var advertisedHost: String?
    /// The SIP port Contact and Via carry, when not the bound one (a NAT's, from STUN).
    var advertisedPort: Int?
    /// The host a WebSocket client's Via and Contact carry: random, in `.invalid` (RFC 7118 §5.2).
    let webSocketHost: String = {
        var generator = SecureRandomNumberGenerator()
        return SIPIdentifierGenerator.token(length: 12, using: &generator) + ".invalid"
    }()
    /// What STUN said each reserved media port maps to, until its call's SDP takes it.
    var mappedMediaAddresses: [UInt16: TransportAddress] = [:]
    /// The host's other addresses (beside the advertised one) that DTLS-SRTP calls offer host
    /// candidates on, when media binds the wildcard; see ``setOtherMediaHosts(_:)``.
    var otherMediaHosts: [String] = []
    /// The host's preferred address in each family it has now (set by the client following the
    /// networks); nil: as the listen address says.
    var hostAddresses: (ipv4: IPAddress?, ipv6: IPAddress?)?
    /// The TURN relay allocated from each reserved media port, until its call takes it.
    var mediaRelays: [UInt16: TURNRelay] = [:]
    /// STUN Binding requests sent on the SIP socket, by transaction ID.
    var stunWaiters: [[UInt8]: EventLoopPromise<TransportAddress>] = [:]
    /// Why a send just failed, by transaction, while the table reports it (see `perform`).
    var sendFailures: [SIPTransactionKey: SIPFailure] = [:]
    /// How work from other threads reaches the loop in bounded turns (see ``LoopJobQueue``).
    package let jobs: LoopJobQueue
    var nextCallID = 1
    var registration: SIPRegistration?
    var registrationTimers: [SIPRegistrationTimer: Scheduled<Void>] = [:]
    /// The first hop's keep-alives (see ``startFlowLivenessIfNeeded()``).
    var flow: SIPUserAgentFlow?
    var flowResolving = false
    /// The first hop whose connection the agent is closing because its keep-alives failed.
    var flowClosing: SIPTransportEndpoint?
    /// A WebSocket client re-registering after its connection dropped (see
    /// ``webSocketConnectionLost(_:)``): the attempts so far and the next one's timer.
    var webSocketRecovery: (attempts: Int, timer: Scheduled<Void>?)?
    /// Answers what no call takes: unknown methods, `Require` tags we lack (420), bad URIs.
    let coreResponder: SIPCoreResponder
    var isShutDown = false
    /// Requests refused statelessly because a limit was reached (503 or 486).
    var overloadRejections = 0
    /// Whether the warning about keys over unencrypted signaling was logged.
    var warnedAboutClearTextKeys = false
    /// Checks callers' credentials when the incoming-call policy asks for them.
    let callerVerifier: SIPDigestVerifier?
    /// Incoming calls not yet answered, per source address.
    var ringingCallsBySource: [String: Int] = [:]

    /// Creates a user agent; call ``start()`` to bind its transport.
    /// - Parameters:
    ///   - configuration: Identity, transport, credentials, media capabilities.
    ///   - group: The event loop group the transport runs on.
    ///   - logger: Where signaling is logged (messages at trace level).
    ///   - onEvent: Called on the event loop for registration changes, incoming calls and call events.
    package convenience init(
        configuration: SIPUserAgentConfiguration,
        group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "voice.sip"),
        onEvent: @escaping @Sendable (SIPUserAgentEvent) -> Void
    ) throws(SIPTransportError) {
        let transportConfiguration = configuration.transportConfiguration
        try self.init(
            configuration: configuration,
            transport: { onEvent throws(SIPTransportError) in
                try SIPTransportLayer(group: group, configuration: transportConfiguration, logger: logger, onEvent: onEvent)
            },
            logger: logger, onEvent: onEvent)
    }

    /// Creates a user agent on a transport of the caller's making (an in-memory one in tests).
    /// - Parameters:
    ///   - clock: Where the state machines read the time; default: the transport's event loop's
    ///     clock, so that on an `EmbeddedEventLoop` timers and "now" move together in virtual time.
    ///   - mediaPorts: Finds each call's local RTP port; default: a port the system picks, found
    ///     by binding off the loop.
    package init(
        configuration: SIPUserAgentConfiguration,
        transport makeTransport: SIPTransportFactory,
        clock: (any MediaClock)? = nil,
        mediaPorts: SIPMediaPortSource? = nil,
        logger: Logger = Logger(label: "voice.sip"),
        onEvent: @escaping @Sendable (SIPUserAgentEvent) -> Void
    ) throws(SIPTransportError) {
        self.configuration = configuration
        self.logger = logger
        self.mediaPortSource = mediaPorts
        self.resolver = SIPTargetResolver(defaultTransport: configuration.transport)
        for server in configuration.dns.nameServers where !DNSResolver.isServerAddress(server) {
            throw SIPTransportError(.invalidAddress, "name server \(server): not an IP address with an optional port")
        }
        self.dnsLookupStorage = configuration.dnsLookup
        self.onEvent = onEvent
        // The option tags we take: 100rel (RFC 3262) and timer (RFC 4028), each unless turned
        // off, and replaces (RFC 3891).
        let supported =
            (configuration.reliableProvisionals ? ["100rel"] : []) + ["replaces"] + (configuration.sessionTimer == nil ? [] : ["timer"])
        self.coreResponder = SIPCoreResponder(
            configuration: .init(
                allowedMethods: [.invite, .ack, .cancel, .bye, .options, .info, .update, .prack, .refer, .notify], supportedExtensions: supported,
                serverName: nil))
        let policy = configuration.incomingCallPolicy
        self.callerVerifier =
            policy.requiredCredentials.isEmpty
            ? nil : SIPDigestVerifier(realm: policy.realm, credentials: policy.requiredCredentials)
        self.table = SIPTransactionTable(
            configuration: configuration.transactionConfiguration, capacity: configuration.limits.maximumTransactions,
            serverCapacity: configuration.limits.maximumServerTransactions,
            serverCapacityPerSource: configuration.limits.maximumServerTransactionsPerSource)
        let box = SIPWeakBox<SIPUserAgent>()
        let transport = try makeTransport { event in box.value?.handleTransportEvent(event) }
        self.transport = transport
        self.jobs = LoopJobQueue(loop: transport.eventLoop)
        self.advertisedHost = configuration.advertisedHost
        self.clock = clock ?? EventLoopMediaClock(loop: transport.eventLoop)
        box.value = self
    }

    /// Binds the configured transport. UDP and TCP also get a listener; TLS listens only when
    /// the transport configuration has a server certificate.
    /// - Returns: The bound local endpoint (its port is what Contact and Via carry).
    package func start() -> EventLoopFuture<SIPTransportEndpoint> {
        if isWebSocketClientOnly {
            // Nothing to bind: every request opens (or reuses) a connection to the proxy.
            guard let address = try? NIOCore.SocketAddress(ipAddress: configuration.listenHost, port: 0) else {
                return eventLoop.makeFailedFuture(
                    SIPTransportError(.invalidAddress, "\(configuration.listenHost) is not a numeric IP address"))
            }
            let endpoint = SIPTransportEndpoint(transport: configuration.transport, address: address)
            return jobs.submit {
                self.localEndpoint = endpoint
                if self.configuration.outboundProxy != nil { self.startFlowLivenessIfNeeded() }
                return endpoint
            }
        }
        return transport.listen(configuration.transport, host: configuration.listenHost, port: configuration.listenPort)
            .flatMapError { error in
                // A TLS client without a certificate still works: it only opens connections.
                guard self.configuration.transport == .tls, (error as? SIPTransportError)?.kind == .unsupportedTransport else {
                    return self.eventLoop.makeFailedFuture(error)
                }
                let address = try? NIOCore.SocketAddress(ipAddress: self.configuration.listenHost, port: 0)
                guard let address else { return self.eventLoop.makeFailedFuture(error) }
                return self.eventLoop.makeSucceededFuture(SIPTransportEndpoint(transport: .tls, address: address))
            }
            .map { endpoint in
                self.localEndpoint = endpoint
                // With an outbound proxy every request goes through it: watch it from the start
                // (a registrar is watched once registration starts).
                if self.configuration.outboundProxy != nil { self.startFlowLivenessIfNeeded() }
                return endpoint
            }
    }

    /// Ends every call with BYE/CANCEL where possible, unregisters nothing, and closes the sockets.
    package func shutdown() -> EventLoopFuture<Void> {
        jobs.flatSubmit {
            for handle in Array(self.calls.keys) { self.performHangUp(handle) }
            self.isShutDown = true
            if self.configuration.dnsLookup == nil, let resolver = self.dnsLookupStorage as? DNSResolver { resolver.shutdown() }
            for failover in self.failovers.values { failover.timer?.cancel() }
            self.flow?.timer?.cancel()
            self.flow = nil
            self.webSocketRecovery?.timer?.cancel()
            self.webSocketRecovery = nil
            self.tableTimer?.cancel()
            for timer in self.registrationTimers.values { timer.cancel() }
            for call in self.calls.values { for timer in call.timers.values { timer.cancel() } }
            // Give the last BYEs a moment on the wire before closing.
            return self.eventLoop.scheduleTask(in: .milliseconds(50)) {}.futureResult.flatMap {
                self.transport.shutdown()
            }.always { _ in
                // Nothing will answer the INFOs still waiting.
                let waiters = Array(self.calls.keys).flatMap { self.calls[$0]?.takeInfoWaiters() ?? [] }
                for waiter in waiters { waiter.fail(SIPUserAgentError.noSuchCall) }
            }
        }
    }

    // MARK: - Addresses we advertise

    /// A WebSocket transport that does not listen: a client in RFC 7118's sense.
    var isWebSocketClientOnly: Bool { configuration.transport.isWebSocket && !configuration.acceptsWebSocketConnections }

    /// Our Contact URI: identity user at the bound address, with `transport=` for TCP/TLS. A
    /// WebSocket client, which cannot be connected to, has its `.invalid` host and `;ob`
    /// (RFC 7118 §5, RFC 5626 §5.4): the proxy reaches it over the connection it opened.
    var contactURI: SIPURI {
        if isWebSocketClientOnly {
            var uri = SIPURI(scheme: .sip, user: configuration.identity.uri.user, host: webSocketHost, port: nil)
            uri.parameters.set("transport", configuration.transport.uriParameter)
            uri.parameters.set("ob", nil)
            return uri
        }
        let endpoint = localEndpoint
        var uri = SIPURI(
            scheme: configuration.transport == .tls ? .sips : .sip,
            user: configuration.identity.uri.user,
            host: advertisedHost ?? endpoint?.host ?? configuration.listenHost,
            port: advertisedPort ?? endpoint?.port)
        if configuration.transport != .udp { uri.parameters.set("transport", configuration.transport.uriParameter) }
        return uri
    }

    /// The top Via template: our transport and sent-by, asking for rport (RFC 3581).
    var viaTemplate: SIPVia {
        if isWebSocketClientOnly {
            var via = SIPVia(transport: configuration.transport.rawValue, host: webSocketHost, port: nil)
            via.parameters.set("rport", nil)
            return via
        }
        let endpoint = localEndpoint
        var via = SIPVia(
            transport: configuration.transport.rawValue, host: advertisedHost ?? endpoint?.host ?? configuration.listenHost,
            port: advertisedPort ?? endpoint?.port)
        via.parameters.set("rport", nil)
        return via
    }

    /// How messages name us toward each hop's family (see ``SIPHopAddressing``): only for a
    /// client that follows the host's networks, advertising one of its own addresses (not a
    /// NAT's address and port learned by STUN, which stay as they are).
    var hopAddressing: SIPHopAddressing? {
        guard let hostAddresses, advertisedPort == nil, let advertised = advertisedHost.flatMap(IPAddress.init),
            advertised == hostAddresses.ipv4 || advertised == hostAddresses.ipv6
        else { return nil }
        return SIPHopAddressing(advertised: advertised, ipv4: hostAddresses.ipv4, ipv6: hostAddresses.ipv6)
    }

    /// `message` as it goes to `peer`, naming us in `peer`'s family (see ``hopAddressing``); a
    /// body with SDP in the family of its call's media peer, once that is known.
    func fitted(_ message: SIPMessage, toward peer: SIPTransportEndpoint) -> SIPMessage {
        guard let hopAddressing, let address = IPAddress(peer.host) else { return message }
        var mediaPeer: IPAddress?
        if !message.body.isEmpty, let callID = try? message.headers.callID(),
            let remote = calls.values.first(where: { $0.session.callID == callID })?.session.negotiatedMedia?.remoteRTP.host
        {
            // A hold's 0.0.0.0 says nothing of the peer's family.
            mediaPeer = IPAddress.literal(remote).flatMap { $0.isUnspecified ? nil : $0 }
        }
        return hopAddressing.fitted(message, toward: address, mediaPeer: mediaPeer)
    }

    var now: MediaTime { clock.now() }
}

/// Who started a client transaction, to route its responses and failures.
enum SIPTransactionOwner: Sendable {
    case call(SIPCallHandle)
    case registration
    /// An OPTIONS keep-alive to the first hop.
    case keepAlive
    /// An OPTIONS that probes one of a server's addresses in a Happy Eyeballs race (its id in
    /// ``SIPUserAgent/probes``).
    case probe(Int)
    case none
}

/// A weak reference usable from a Sendable closure.
final class SIPWeakBox<T: AnyObject>: @unchecked Sendable {
    weak var value: T?
}
