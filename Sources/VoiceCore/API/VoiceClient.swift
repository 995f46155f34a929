import VoiceAddress
import VoiceSTUN
import CoreMetrics
import Dispatch
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization
import VoiceMedia
import VoiceNetwork
import VoiceSIP
import VoiceSIPAgent
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

/// The SDK's entry point: one SIP identity that places calls (``connect(options:delegate:)``)
/// and receives them (``register(accessToken:notificationDelegate:delegateQueue:callMessageDelegate:completion:)``). Many clients
/// and many calls may live in one process.
///
/// Thread-safe. Its signaling runs on one event loop: one of the SDK's own group (never NIO's
/// process-wide singleton, which the app may be using), or, for a service, one of the group it
/// passes to `VoiceService`'s initializer. Nothing slow runs on that loop: each call's media
/// starts and stops on a queue of its own.
public final class VoiceClient: @unchecked Sendable {
    // @unchecked: the vars below are touched on `agent.eventLoop` only, except `audioDeviceBox` (a `Locked`).

    /// The SDK version.
    public static var sdkVersion: String { VoiceSDK.version }

    /// The SDK's log level for clients created from now on; nil (the default) keeps the level of
    /// the configuration's logger.
    public static var logLevel: Logger.Level? {
        get { logLevelBox.withLock { $0 } }
        set { logLevelBox.withLock { $0 = newValue } }
    }
    private static let logLevelBox = Locked<Logger.Level?>(nil)

    /// The configuration.
    public let configuration: VoiceClientConfiguration
    package let agent: SIPUserAgent
    let logger: Logger
    /// The client's swift-metrics instruments.
    let metrics: VoiceMetrics
    /// Where the client's Insights events go: the configuration's sink, or its logger.
    package let insights: InsightsSink
    /// The bound local SIP address.
    public let localEndpoint: SIPTransportEndpoint
    /// Makes each call's media.
    let mediaFactory: CallMediaFactory
    /// The certificate of this client's DTLS-SRTP calls: the configuration's, or one made at start.
    let dtlsIdentity: DTLSIdentity
    /// Media jobs run at once on the loop instead of on a queue (tests with null media).
    let runsMediaJobsInline: Bool
    private let audioDeviceBox: Locked<(any AudioDevice)?>
    /// Where calls' media jobs run (each call's serial queue targets it): one job at a time per
    /// client. Run concurrently, a burst of call setups spread over many threads and took the
    /// cores from the signaling loop (`voice-bench loop`: 9–11 ms late at worst, against 4–6 ms
    /// one at a time, for 50 calls at once on two cores).
    let mediaControlQueue = DispatchQueue(label: "voice-media-control")
    var calls: [SIPCallHandle: CallCore] = [:]
    /// Watches the host's networks (``AddressSelection/automatic(interfaceTypes:)`` only).
    let networkMonitor: NetworkMonitor?
    /// Where calls' media sockets bind: the listen host, or the wildcard when the address follows the network.
    let mediaBindHost: String
    /// The address Contact, Via and SDP carry (automatic selection), and whether no network can
    /// reach the peer now. On the loop.
    var advertisedHost: String?
    /// The host's address of each family the agent names it by (see ``hostAddresses(_:advertised:keeping:)``). On the loop.
    var hostAddressPicks: (ipv4: IPAddress?, ipv6: IPAddress?) = (nil, nil)
    var networkLost = false
    var invites: [SIPCallHandle: CallInvite] = [:]
    var notification: (delegate: DelegateBox<NotificationDelegate>, queue: DispatchQueue, messages: DelegateBox<CallMessageDelegate>?)?
    /// Call notifications handed in before their INVITE arrived, by call SID.
    var pendingNotifications: [String: PendingNotification] = [:]
    /// How long a call notification waits for its INVITE: the INVITE transaction's own lifetime
    /// (64·T1). Tests shorten it.
    var notificationLifetime = TimeAmount.seconds(32)
    var registrationCompletions: [@Sendable (VoiceError?) -> Void] = []
    var unregistrationCompletions: [@Sendable (VoiceError?) -> Void] = []
    var accessToken: AccessToken?

    /// The audio device new calls use unless their options name one. Default: none (the call
    /// runs without local audio; set an `ALSAAudioDevice`, a `FileAudioDevice` or a `BufferAudioDevice`).
    ///
    /// Calls share devices, as in Twilio's SDK: all calls running on one device object (this
    /// one, or one passed in several calls' options, by any client of the process) hear its
    /// microphone, and it plays the mix of their audio. A held call drops out of the mix; the
    /// device starts with the first call and stops when the last one ends (see `SharedAudioDevice`).
    public var audioDevice: (any AudioDevice)? {
        get { audioDeviceBox.withLock { $0 } }
        set { audioDeviceBox.withLock { $0 = newValue } }
    }

    /// The event loops clients run on unless given a group: the SDK's own, one thread per core,
    /// started on first use and never shut down. Its threads are scheduled as
    /// ``makeEventLoopGroup(numberOfThreads:)`` describes.
    package static let defaultEventLoopGroup: any EventLoopGroup = {
        let group = MultiThreadedEventLoopGroup._makePerpetualGroup(threadNamePrefix: "voice-sip-", numberOfThreads: System.coreCount)
        _ = SignalingThreadProfile.apply(to: group)
        return group
    }()

    /// Makes an event loop group for clients whose threads the kernel wakes promptly: a short
    /// scheduler slice (Linux 6.12 and later) and, where the process is allowed to lower it
    /// (`CAP_SYS_NICE`, or systemd's `LimitNICE=`), a nice value of −5. A signaling loop uses a
    /// few percent of a core, so this takes next to nothing from the media threads, while its
    /// timers and queued work no longer wait a scheduler tick behind them on a busy machine.
    /// What the kernel refuses is skipped. The caller owns the group and shuts it down.
    ///
    /// A group passed to ``init(configuration:audioDevice:eventLoopGroup:)`` that was made
    /// otherwise is used as it is: the SDK never changes the scheduling of the app's threads.
    package static func makeEventLoopGroup(numberOfThreads: Int = 1) -> MultiThreadedEventLoopGroup {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, numberOfThreads))
        _ = try? SignalingThreadProfile.apply(to: group).wait()
        return group
    }

    /// Creates a client and binds its SIP transport.
    ///
    /// Do not call it on an event loop: it waits for the bind.
    /// - Parameters:
    ///   - configuration: Who the client is, where it listens and how it signals.
    ///   - audioDevice: The device calls capture from and play to; nil: none (silent calls).
    /// - Throws: ``VoiceError`` 31009 (transportError) when the address cannot be bound, TLS
    ///   cannot be set up, or the STUN server's name does not resolve.
    public convenience init(configuration: VoiceClientConfiguration, audioDevice: (any AudioDevice)? = nil) throws(VoiceError) {
        try self.init(configuration: configuration, audioDevice: audioDevice, eventLoopGroup: VoiceClient.defaultEventLoopGroup, transport: nil)
    }

    /// Creates a client whose signaling runs on one loop of `eventLoopGroup`, which must outlive
    /// it (a service that shares its SwiftNIO group: `VoiceService`'s initializer).
    package convenience init(
        configuration: VoiceClientConfiguration, audioDevice: (any AudioDevice)?, eventLoopGroup: any EventLoopGroup
    ) throws(VoiceError) {
        try self.init(configuration: configuration, audioDevice: audioDevice, eventLoopGroup: eventLoopGroup, transport: nil)
    }

    /// Creates a client on a transport, clock and media of the caller's making: with an
    /// in-memory transport on an `EmbeddedEventLoop`, null media and media jobs run inline, a
    /// whole call runs in virtual time. The transport must have bound when `listen` returns
    /// on its loop, or be on a loop other than the calling thread's.
    package init(
        configuration: VoiceClientConfiguration, audioDevice: (any AudioDevice)? = nil,
        eventLoopGroup: any EventLoopGroup = VoiceClient.defaultEventLoopGroup,
        transport: SIPTransportFactory?, clock: (any MediaClock)? = nil, mediaPorts: SIPMediaPortSource? = nil,
        media: CallMediaFactory = .engine, runsMediaJobsInline: Bool = false
    ) throws(VoiceError) {
        self.configuration = configuration
        self.mediaFactory = media
        self.runsMediaJobsInline = runsMediaJobsInline
        var logger = configuration.logger
        logger[metadataKey: "identity"] = "\(configuration.identity)"
        if let level = Self.logLevel { logger.logLevel = level }
        self.logger = logger
        self.metrics = VoiceMetrics(factory: configuration.metricsFactory ?? MetricsSystem.factory)
        self.insights = configuration.insightsSink ?? .logging(logger)
        self.audioDeviceBox = Locked(audioDevice)
        if let given = configuration.dtlsIdentity {
            dtlsIdentity = given
        } else {
            dtlsIdentity = try DTLSIdentity.generate()
        }
        var agentConfiguration = try Self.agentConfiguration(configuration, dtlsIdentity: dtlsIdentity)
        var initialOtherMediaHosts: [String] = []
        var initialAddresses: (ipv4: IPAddress?, ipv6: IPAddress?)?
        let box = SIPClientBox()
        if configuration.addressSelection == .automatic {
            let interfaceTypes = configuration.interfaceTypes
            do {
                let monitor = try NetworkMonitor(
                    classifier: NetworkInterfaceClassifier(overrides: interfaceTypes), logger: logger,
                    onAddressesChanged: { candidates in
                        guard let client = box.client else { return }
                        client.onLoop { client.localAddressesChanged(candidates) }
                    }
                ) { candidates in
                    guard let client = box.client else { return }
                    client.onLoop { client.networkChanged(candidates) }
                }
                let preferred = Self.preferredHost(monitor.candidates, configuration: configuration)
                agentConfiguration.listenHost = Self.wildcardHost
                agentConfiguration.mediaListenHost = Self.mediaWildcardHost
                agentConfiguration.advertisedHost = preferred ?? "127.0.0.1"
                initialOtherMediaHosts = preferred.map { Self.otherMediaHosts(monitor.candidates, preferred: $0) } ?? []
                initialAddresses = Self.hostAddresses(monitor.candidates, advertised: preferred, keeping: (nil, nil))
                hostAddressPicks = initialAddresses ?? (nil, nil)
                networkMonitor = monitor
                advertisedHost = agentConfiguration.advertisedHost
                networkLost = preferred == nil
            } catch {
                throw VoiceError(.transportError, failureReason: "\(error)")
            }
        } else {
            networkMonitor = nil
        }
        mediaBindHost = agentConfiguration.mediaListenHost ?? agentConfiguration.listenHost
        do {
            let onEvent: @Sendable (SIPUserAgentEvent) -> Void = { event in box.client?.handle(event) }
            if let transport {
                agent = try SIPUserAgent(
                    configuration: agentConfiguration, transport: transport, clock: clock, mediaPorts: mediaPorts, logger: logger,
                    onEvent: onEvent)
            } else {
                agent = try SIPUserAgent(configuration: agentConfiguration, group: eventLoopGroup, logger: logger, onEvent: onEvent)
            }
            localEndpoint = try Self.value(of: agent.start())
            if !initialOtherMediaHosts.isEmpty { agent.setOtherMediaHosts(initialOtherMediaHosts) }
            if let addresses = initialAddresses { agent.setHostAddresses(ipv4: addresses.ipv4, ipv6: addresses.ipv6) }
            if configuration.transport == .udp, agentConfiguration.stunServer != nil, !agent.eventLoop.inEventLoop {
                do {
                    let mapped = try agent.discoverSignalingAddress().wait()
                    try agent.advertise(host: mapped.ip.description, port: Int(mapped.port)).wait()
                    logger.notice("STUN: advertising \(mapped) for \(localEndpoint)")
                } catch {
                    logger.warning("STUN: no mapped address for the SIP socket (\(error)); advertising the local address")
                }
            }
        } catch let error as SIPTransportError {
            throw VoiceError(transportError: error)
        } catch {
            throw VoiceError(.transportError, failureReason: "\(error)")
        }
        box.client = self
    }

    /// Reads the Contact address the client announces now (`sip:alice@192.0.2.10:5060`): where
    /// the registrar and peers send requests for it. It is ``localEndpoint``'s address unless
    /// STUN learned the NAT's (``VoiceClientConfiguration/stunServer``) or the address follows
    /// the network (``VoiceClientConfiguration/addressSelection``), and it changes with them.
    /// - Parameters:
    ///   - queue: Where `completion` runs; default main.
    ///   - completion: Runs once with the Contact URI, after the app's earlier requests to the
    ///     client have been handled (never, if the client's event loop group was shut down).
    public func getContactAddress(queue: DispatchQueue = .main, completion: @escaping @Sendable (String) -> Void) {
        agent.advertisedContact.whenSuccess { contact in queue.async { completion(contact) } }
    }

    /// Runs `job` on the agent's loop after the app's earlier requests (see ``LoopJobQueue``).
    func onLoop(_ job: @escaping @Sendable () -> Void) { agent.jobs.execute(job) }

    deinit {
        _ = agent.shutdown()
    }

    /// Ends every call and closes the sockets. Waits until done, unless called on the client's
    /// own event loop (a delegate hopping there), where it only starts it: nothing waits on a loop.
    public func shutdown() {
        guard !agent.eventLoop.inEventLoop else {
            for core in calls.values { core.disconnect() }
            _ = agent.shutdown()
            let monitor = networkMonitor
            DispatchQueue.global().async { monitor?.stop() }
            return
        }
        networkMonitor?.stop()
        _ = try? agent.eventLoop.submit {
            for core in self.calls.values { core.disconnect() }
        }.wait()
        try? agent.shutdown().wait()
    }

    private static func agentConfiguration(_ c: VoiceClientConfiguration, dtlsIdentity: DTLSIdentity) throws(VoiceError)
        -> SIPUserAgentConfiguration
    {
        let identity = SIPNameAddress(uri: SIPURI(user: c.identity, host: c.domain))
        var credentials: [SIPAuthCredentials] = []
        if let username = c.username, let password = c.password {
            credentials.append(SIPAuthCredentials(username: username, password: password))
        }
        let transport = try Self.signalingTransport(c)
        var transportConfiguration = c.transportSettings
        try c.tls.apply(to: &transportConfiguration)
        if let path = (c.outboundProxy ?? c.registrar)?.webSocketPath { transportConfiguration.webSocketPath = path }
        var configuration = SIPUserAgentConfiguration(
            identity: identity, credentials: credentials, transport: transport, listenHost: c.listenHost,
            listenPort: c.listenPort,
            outboundProxy: c.outboundProxy?.uri, registrar: c.registrar?.uri,
            media: SDPLocalCapabilities(
                address: c.listenHost, port: 0, telephoneEvents: c.telephoneEvents, encryption: Self.encryptionPolicy(c),
                dtlsFingerprint: SDPFingerprint(hashFunction: "sha-256", digest: dtlsIdentity.certificate.fingerprint.bytes)),
            userAgent: c.userAgent, transportConfiguration: transportConfiguration)
        configuration.acceptsWebSocketConnections = c.acceptsWebSocketConnections
        configuration.flowLiveness = c.reconnection.flowLiveness
        configuration.stunServer = try c.stunServer.map(Self.resolveSTUNServer)
        try applyICEOptions(c.iceOptions, to: &configuration, trustedCertificatesFile: c.turnTrustedCertificatesFile)
        configuration.limits = c.limits
        configuration.fallbackProxies = c.fallbackProxies.map(\.uri)
        for server in c.nameServers where !DNSResolver.isServerAddress(server) {
            throw VoiceError(.malformedRequest, failureReason: "name server \(server) is not an IP address with an optional port")
        }
        configuration.dns.nameServers = c.nameServers
        configuration.failoverTimeout = c.failoverTimeout
        configuration.allowsKeysOverUnencryptedSignaling = c.mediaSecurity.allowsKeysOverUnencryptedSignaling
        configuration.incomingCallPolicy = c.incomingCallPolicy
        configuration.sessionTimer = c.sessionExpires.map { SIPSessionTimer.Settings(sessionExpires: $0, minimumSE: c.sessionMinimumSE) }
        let engine = c.mediaEngine
        configuration.mediaLoad = { engine.load }
        return configuration
    }

    /// The transport the client speaks: the configuration's, or the WebSocket of a `ws://` or
    /// `wss://` outbound proxy or registrar when the configuration left the default (UDP).
    static func signalingTransport(_ c: VoiceClientConfiguration) throws(VoiceError) -> SIPTransportProtocol {
        let webSockets = [c.outboundProxy, c.registrar].compactMap { $0?.webSocketTransport }
        guard let server = webSockets.first else { return c.transport }
        guard webSockets.allSatisfy({ $0 == server }), c.transport == .udp || c.transport == server else {
            throw VoiceError(
                .malformedRequest,
                failureReason: "transport \(c.transport) does not match the \(server == .wss ? "wss://" : "ws://") server address")
        }
        return server
    }

    /// What the configuration's ``MediaSecurity`` means for offers and answers.
    static func encryptionPolicy(_ c: VoiceClientConfiguration) -> SDPEncryptionPolicy {
        let suites = c.srtpSuites ?? SRTPSuite.available
        switch c.mediaSecurity {
        case .automatic, .automaticOverUnencryptedSignaling: return .automatic(suites: suites)
        case .dtls: return .dtlsSRTP
        case .sdes, .sdesOverUnencryptedSignaling: return .srtp(suites: suites)
        case .unencrypted: return .unencrypted
        }
    }

    /// The STUN server's address, resolved now (blocking, as init may).
    static func resolveSTUNServer(_ server: STUNServerAddress) throws(VoiceError) -> TransportAddress {
        // The port was checked to be 1–65535 when the address was made.
        let port = UInt16(truncatingIfNeeded: server.port)
        if let address = IPAddress(server.host) { return TransportAddress(ip: address, port: port) }
        guard let resolved = try? NIOCore.SocketAddress.makeAddressResolvingHost(server.host, port: server.port),
            let ip = resolved.ipAddress, let address = IPAddress(ip)
        else {
            throw VoiceError(.transportError, failureReason: "STUN server \(server.host) cannot be resolved")
        }
        return TransportAddress(ip: address, port: port)
    }

    var now: MediaTime { agent.clock.now() }

    /// The value of `future`: at once if it has completed and this thread is its loop's, else
    /// by waiting (never on the loop itself).
    private static func value<T: Sendable>(of future: EventLoopFuture<T>) throws -> T {
        if future.eventLoop.inEventLoop {
            let result = Locked<Result<T, Error>?>(nil)
            future.whenComplete { outcome in result.withLock { $0 = outcome } }
            if let outcome = result.withLock({ $0 }) { return try outcome.get() }
            throw VoiceError(.transportError, failureReason: "the transport did not bind at once on its own loop")
        }
        return try future.wait()
    }

    // MARK: - Outgoing calls

    /// Places a call. The returned call starts in `.connecting`; its outcome arrives on the delegate.
    /// An invalid destination, or an access token given that is invalid (20101/20104/20105…),
    /// fails the call before any packet is sent. Without a token the call needs none: the
    /// configuration's identity and digest credentials are all the server sees.
    public func connect(options: ConnectOptions, delegate: CallDelegate) -> Call {
        connect(options: options, delegate: delegate, transfer: nil)
    }

    /// Places a call; for a transfer we accepted, to its target with its header fields, and
    /// reporting to the transferor how it goes.
    func connect(options: ConnectOptions, delegate: CallDelegate, transfer: CallTransferLeg?) -> Call {
        let destinationText = transfer?.destination ?? options.params[CallCustomHeaders.destinationParameter] ?? ""
        let call = Call(uuid: options.uuid, from: configuration.identity, to: destinationText, sid: nil, delegateQueue: options.delegateQueue)
        let core = CallCore(
            client: self, call: call, role: .caller, delegate: delegate, delegateQueue: options.delegateQueue,
            messageDelegate: options.callMessageDelegate, preferredCodecs: options.preferredAudioCodecs,
            enableDSCP: options.enableDscp, audioDevice: options.audioDevice, audioProcessing: options.audioProcessing)
        call.core.withLock { $0 = core }
        if let transfer { onLoop { core.transferReferrer = transfer.referrer } }
        // Validate before any traffic.
        let prepared: (token: AccessToken?, uri: SIPURI, headers: [(String, String)])
        do throws(VoiceError) {
            let token = try options.accessToken.map { text throws(VoiceError) in try AccessToken(parsing: text, now: Date()) }
            let destination = try CallDestination(parsing: destinationText)
            if !options.sipHeaders.isEmpty, case .sipAddress = destination {
            } else if !options.sipHeaders.isEmpty {
                throw VoiceError(.malformedRequest, failureReason: "SIP headers are only for SIP-address destinations")
            }
            var sipHeaders = SIPHeaders()
            try CallCustomHeaders(parameters: options.params, headers: options.sipHeaders).apply(to: &sipHeaders)
            if case .conference = destination { try configuration.conferenceAddressing.validate() }
            let request = destination.request(domain: configuration.domain, conference: configuration.conferenceAddressing)
            prepared = (token, request.uri, sipHeaders.map { ($0.name, $0.value) } + request.headers + (transfer?.headers ?? []))
        } catch {
            onLoop { core.run(core.machine.signalingFailed(core.stateError(error), now: self.now)) }
            return call
        }
        let headers = prepared.headers.map { SIPHeaderPair(name: $0.0, value: $0.1) }
        // A token answers Bearer challenges; without one only the configured digest credentials answer.
        let credentials = prepared.token.map { [SIPAuthCredentials(bearerToken: $0.rawValue)] } ?? []
        let codecs = options.preferredAudioCodecs.map(\.mediaCodec)
        onLoop {
            self.agent.call(
                prepared.uri, headers: headers.map { ($0.name, $0.value) }, codecs: codecs, credentials: credentials
            ).whenComplete { result in
                switch result {
                case .success(let handle):
                    core.handle = handle
                    if let info = self.agent.callInfo(handle) {
                        call.update { $0.sid = CallSid(callID: info.callID).rawValue }
                    }
                    // Disconnected before the INVITE went out: end the SIP call, keep no state.
                    if core.machine.isDisconnected {
                        self.agent.hangUp(handle)
                    } else {
                        self.calls[handle] = core
                        core.trackMedia(.created)
                        core.signalingState(.haveLocalOffer)
                        core.run(core.machine.dialing(now: self.now))
                    }
                case .failure(SIPUserAgentError.keysNeedProtectedSignaling):
                    let voiceError = VoiceError(
                        .mediaClientLocalDescFailed,
                        failureReason: "SRTP keys are only sent over TLS signaling (or loopback); use TLS, or mediaSecurity .sdesOverUnencryptedSignaling")
                    core.run(core.machine.signalingFailed(core.stateError(voiceError), now: self.now))
                case .failure(SIPUserAgentError.noRelay(let why)):
                    // Relay only, and no relay: the call could only have revealed our addresses.
                    let voiceError = VoiceError.mediaConnectionFailed("relay-only ICE policy, and no TURN relay: \(why)")
                    core.run(core.machine.signalingFailed(core.stateError(voiceError), now: self.now))
                case .failure(let error):
                    let voiceError = VoiceError(.connectionError, failureReason: "\(error)")
                    core.run(core.machine.signalingFailed(core.stateError(voiceError), now: self.now))
                }
            }
        }
        return call
    }

    func callEnded(_ core: CallCore) {
        if let handle = core.handle { calls[handle] = nil }
    }

    // MARK: - Events from the SIP agent (on its event loop)

    func handle(_ event: SIPUserAgentEvent) {
        switch event {
        case .call(let handle, let sessionEvent):
            if let core = calls[handle] {
                core.sessionEvent(sessionEvent)
            } else if let invite = invites[handle] {
                inviteEvent(invite, sessionEvent)
            }
        case .incomingCall(let handle, let invite, _, let replacing):
            incomingCall(handle, invite: invite, replacing: replacing.flatMap { calls[$0] })
        case .registration(let registrationEvent):
            registrationChanged(registrationEvent)
        case .connectionLost(let remote, _):
            for core in calls.values { core.signalingConnectionLost(remote) }
        case .flowFailed(let hop):
            for core in calls.values { core.signalingPathFailed(through: hop) }
        case .flowRecovered(let hop):
            agent.refreshRegistration()
            for core in calls.values { core.signalingPathRecovered(through: hop) }
        }
    }
}

/// Lets the agent's event closure reach the client once it exists.
final class SIPClientBox: @unchecked Sendable {
    // @unchecked: set once during init, before any event can arrive that needs it.
    weak var client: VoiceClient?
}

