import Dispatch
import VoiceSupport
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import VoiceSIP

/// SIP over UDP, TCP and TLS on SwiftNIO (RFC 3261 §18): listens, sends a message to an endpoint
/// (reusing or opening a connection for TCP/TLS), parses what arrives and reports it as
/// ``SIPTransportEvent``s.
///
/// All state lives on one event loop, ``eventLoop``; events are delivered there, and methods may
/// be called from any thread (they hop onto the loop). UDP messages are sent from the listening
/// socket so the peer sees the address it would reply to (symmetric signaling, RFC 3581); ICMP
/// errors for them are reported as ``SIPTransportEvent/unreachable(remote:error:)`` (see
/// `SIPDatagramSocket`, which reads UDP on its own thread and hands batches to the loop).
/// TLS connections verify the server certificate and host name unless the client configuration
/// says otherwise.
package final class SIPTransportLayer: @unchecked Sendable {
    // @unchecked: every stored var below is read and written on `eventLoop` only.

    /// The loop all transport state lives on.
    package let eventLoop: EventLoop
    /// The settings.
    package let configuration: SIPTransportConfiguration
    private let group: EventLoopGroup
    private let parser: SIPMessageParser
    private let clientTLS: NIOSSLContext
    private let serverTLS: NIOSSLContext?
    private let logger: Logger
    private let onEvent: @Sendable (SIPTransportEvent) -> Void

    private var udpSocket: SIPDatagramSocket?
    /// The socket the first UDP send is opening, if any.
    private var udpSocketOpening: EventLoopFuture<SIPTransportEndpoint>?
    /// Where the UDP socket is resolved, bound and given its reader thread (not on the loop).
    private let blockingQueue = DispatchQueue(label: "voice-sip-transport-blocking")
    private var listeners: [SIPTransportProtocol: Channel] = [:]
    private var connections: [SIPTransportEndpoint: Channel] = [:]
    /// Inbound connections that have not yet sent a complete message, with when they opened:
    /// the ones to close first when the table is full.
    private var unproven: [SIPTransportEndpoint: NIODeadline] = [:]
    /// Open inbound connections per source IP address.
    private var inboundPerSource: [String: Int] = [:]
    private var inbound: Set<SIPTransportEndpoint> = []
    private var pendingConnections: [SIPTransportEndpoint: EventLoopFuture<Channel>] = [:]
    /// The verified certificate names of each TLS connection's peer (see `SIPTLSIdentity`).
    private var tlsIdentities: [SIPTransportEndpoint: Set<String>] = [:]
    /// WebSocket connections and handshakes refused, by reason.
    private var webSocketRefusals: [SIPWebSocketRefusal: Int] = [:]
    private var isShutDown = false

    /// Creates a transport layer; nothing is bound until ``listen(_:host:port:)``.
    /// - Parameters:
    ///   - group: The event loop group; the layer pins itself to one of its loops.
    ///   - configuration: TLS, limits and timeouts.
    ///   - logger: Where transport events are logged.
    ///   - onEvent: Called on ``eventLoop`` for each received message, parse failure and closed connection.
    /// - Throws: ``SIPTransportError`` `.tlsFailed` when a TLS configuration cannot be loaded.
    package init(
        group: EventLoopGroup,
        configuration: SIPTransportConfiguration = SIPTransportConfiguration(),
        logger: Logger = Logger(label: "voice.sip.transport"),
        onEvent: @escaping @Sendable (SIPTransportEvent) -> Void
    ) throws(SIPTransportError) {
        self.group = group
        self.eventLoop = group.next()
        self.configuration = configuration
        self.parser = SIPMessageParser(limits: configuration.parserLimits)
        self.logger = logger
        self.onEvent = onEvent
        do {
            clientTLS = try NIOSSLContext(configuration: configuration.tlsClient)
            serverTLS = try configuration.tlsServer.map { try NIOSSLContext(configuration: $0) }
        } catch {
            throw SIPTransportError(.tlsFailed, "TLS configuration: \(error)")
        }
    }

    /// The kernel send buffer of a TCP/TLS connection. Signaling needs little, and a fixed size
    /// (rather than autotuning to megabytes) makes a peer that does not read push back soon.
    static let streamSendBufferSize: SocketOptionValue = 128 << 10

    // MARK: - Listening

    /// Starts listening for `transport` on a local address; port 0 picks a free port.
    /// - Returns: The bound local endpoint.
    package func listen(_ transport: SIPTransportProtocol, host: String, port: Int) -> EventLoopFuture<SIPTransportEndpoint> {
        eventLoop.flatSubmit { self.listenOnLoop(transport, host: host, port: port) }
    }

    /// The bound local endpoint of `transport`, if listening.
    package func localEndpoint(_ transport: SIPTransportProtocol) -> EventLoopFuture<SIPTransportEndpoint?> {
        eventLoop.submit {
            if transport == .udp { return self.udpSocket.map { SIPTransportEndpoint(transport: .udp, address: $0.localAddress) } }
            return self.listeners[transport]?.localAddress.map { SIPTransportEndpoint(transport: transport, address: $0) }
        }
    }

    private func listenOnLoop(_ transport: SIPTransportProtocol, host: String, port: Int) -> EventLoopFuture<SIPTransportEndpoint> {
        guard !isShutDown else { return eventLoop.makeFailedFuture(SIPTransportError(.shutDown, "transport is shut down")) }
        let bound: EventLoopFuture<Channel>
        switch transport {
        case .udp:
            // Resolving, binding and starting the reader thread happen off the loop.
            let deliver = self.onEvent
            let loop = eventLoop
            let parser = self.parser
            let promise = loop.makePromise(of: SIPTransportEndpoint.self)
            blockingQueue.async {
                do {
                    let address = try NIOCore.SocketAddress.makeAddressResolvingHost(host, port: port)
                    let socket = try SIPDatagramSocket.open(boundTo: address, eventLoop: loop, parser: parser, deliver: deliver)
                    loop.execute {
                        guard !self.isShutDown else {
                            socket.close()
                            promise.fail(SIPTransportError(.shutDown, "transport is shut down"))
                            return
                        }
                        self.udpSocket?.close()
                        self.udpSocket = socket
                        promise.succeed(SIPTransportEndpoint(transport: .udp, address: socket.localAddress))
                    }
                } catch {
                    let detail = (error as? SIPTransportError)?.detail ?? "\(error)"
                    promise.fail(SIPTransportError(.bindFailed, "udp \(host):\(port): \(detail)"))
                }
            }
            return promise.futureResult
        case .tcp, .tls, .ws, .wss:
            let tls: NIOSSLContext?
            if transport.isSecure {
                guard let serverTLS else {
                    return eventLoop.makeFailedFuture(
                        SIPTransportError(.unsupportedTransport, "listening on \(transport) needs a server certificate"))
                }
                tls = serverTLS
            } else {
                tls = nil
            }
            bound = ServerBootstrap(group: eventLoop)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelOption(.socketOption(.so_sndbuf), value: Self.streamSendBufferSize)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if transport.isWebSocket {
                            try self.configureWebSocketServer(channel, transport: transport, serverTLS: tls)
                        } else {
                            try self.configureStream(channel, transport: transport, serverTLS: tls, clientTLSHost: nil, inbound: true)
                        }
                    }
                }
                .bind(host: host, port: port)
        }
        return bound.flatMapErrorThrowing { error in
            throw SIPTransportError(.bindFailed, "\(transport) \(host):\(port): \(error)")
        }.flatMapThrowing { channel in
            guard let local = channel.localAddress else { throw SIPTransportError(.bindFailed, "no local address") }
            self.listeners[transport] = channel
            return SIPTransportEndpoint(transport: transport, address: local)
        }
    }

    /// Refuses UDP destinations a send cannot reach: another address family, broadcast or
    /// unspecified addresses, and non-loopback peers of a loopback socket.
    private func checkDatagramDestination(
        _ destination: NIOCore.SocketAddress, from local: NIOCore.SocketAddress?, dualStack: Bool = false
    ) throws(SIPTransportError) {
        guard let ip = destination.ipAddress, let local else { return }
        if local.protocol != destination.protocol, !(dualStack && destination.protocol == .inet) {
            throw SIPTransportError(.invalidAddress, "\(ip) is not reachable from the \(local) socket")
        }
        if ["0.0.0.0", "255.255.255.255", "::"].contains(ip) || destination.port == 0 {
            throw SIPTransportError(.invalidAddress, "\(destination) is not a unicast destination")
        }
        let isLoopback: (String) -> Bool = { $0.hasPrefix("127.") || $0 == "::1" }
        if let localIP = local.ipAddress, isLoopback(localIP), !isLoopback(ip) {
            throw SIPTransportError(.invalidAddress, "\(ip) is not reachable from loopback \(localIP)")
        }
    }

    // MARK: - Sending

    /// Sends one message's bytes to `destination`. UDP goes out of the listening socket (one is
    /// bound on an ephemeral port if none is); TCP/TLS reuse the open connection to the
    /// destination or open one.
    /// - Parameters:
    ///   - bytes: The serialized message.
    ///   - destination: Where to.
    ///   - serverName: For TLS, the host name the certificate must match; nil verifies the IP
    ///     address against the certificate's IP SANs.
    /// - Returns: A future that fails with ``SIPTransportError`` when the message could not be sent.
    package func send(_ bytes: [UInt8], to destination: SIPTransportEndpoint, serverName: String? = nil) -> EventLoopFuture<Void> {
        eventLoop.flatSubmit { self.sendOnLoop(bytes, to: destination, serverName: serverName) }
    }

    private func sendOnLoop(_ bytes: [UInt8], to destination: SIPTransportEndpoint, serverName: String?) -> EventLoopFuture<Void> {
        guard !isShutDown else { return eventLoop.makeFailedFuture(SIPTransportError(.shutDown, "transport is shut down")) }
        switch destination.transport {
        case .udp:
            guard bytes.count <= 65_507 else {
                return eventLoop.makeFailedFuture(SIPTransportError(.messageTooLarge, "\(bytes.count) bytes over UDP"))
            }
            let socket: EventLoopFuture<SIPDatagramSocket>
            if let udpSocket {
                socket = eventLoop.makeSucceededFuture(udpSocket)
            } else {
                // The first send opens a socket; sends meanwhile wait for the same one.
                let opening: EventLoopFuture<SIPTransportEndpoint>
                if let pending = udpSocketOpening {
                    opening = pending
                } else {
                    let any = destination.address.protocol == .inet6 ? "::" : "0.0.0.0"
                    opening = listenOnLoop(.udp, host: any, port: 0)
                    udpSocketOpening = opening
                    opening.whenComplete { _ in self.udpSocketOpening = nil }
                }
                socket = opening.flatMapThrowing { _ in
                    guard let socket = self.udpSocket else { throw SIPTransportError(.bindFailed, "no UDP socket") }
                    return socket
                }
            }
            return socket.flatMapThrowing { socket in
                try self.checkDatagramDestination(destination.address, from: socket.localAddress, dualStack: socket.isDualStack)
                try socket.send(bytes, to: destination.address)
            }.flatMapErrorThrowing { error in throw Self.sendError(error, destination) }
        case .tcp, .tls, .ws, .wss:
            return connection(to: destination, serverName: serverName).flatMap { channel in
                channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
            }.flatMapErrorThrowing { error in throw Self.sendError(error, destination) }
        }
    }

    private static func sendError(_ error: Error, _ destination: SIPTransportEndpoint) -> SIPTransportError {
        if let error = error as? SIPTransportError { return error }
        return SIPTransportError(.sendFailed, "to \(destination): \(error)")
    }

    /// Whether a TCP/TLS connection to `remote` is open.
    package func hasConnection(to remote: SIPTransportEndpoint) -> EventLoopFuture<Bool> {
        eventLoop.submit { self.isConnected(to: remote) }
    }

    /// Whether a TCP/TLS connection to `remote` is open; on ``eventLoop`` only.
    package func isConnected(to remote: SIPTransportEndpoint) -> Bool {
        eventLoop.preconditionInEventLoop()
        return connections[remote] != nil
    }

    /// The DNS names the peer of the TLS connection `remote` proved with a certificate that
    /// verified against our trust roots; empty for another transport, an unverified or absent
    /// certificate, or no such connection. On ``eventLoop`` only.
    package func verifiedTLSNames(of remote: SIPTransportEndpoint) -> Set<String> {
        eventLoop.preconditionInEventLoop()
        return tlsIdentities[remote] ?? []
    }

    /// Closes the connection to `remote`, if open.
    package func closeConnection(to remote: SIPTransportEndpoint) -> EventLoopFuture<Void> {
        eventLoop.flatSubmit {
            guard let channel = self.connections[remote] else { return self.eventLoop.makeSucceededVoidFuture() }
            return channel.close().recover { _ in }
        }
    }

    package func closeAllConnections() -> EventLoopFuture<Void> {
        eventLoop.submit {
            // Forgotten and reported at once, closed in the background: a TLS close waits for
            // the peer's close_notify (up to its shutdown timeout, 5 s), which a connection
            // bound to an address the host no longer has never gets, while the requests that
            // replace it must go out now, over new connections.
            for (remote, channel) in self.connections {
                self.forget(remote)
                self.onEvent(.connectionClosed(remote: remote, error: nil))
                channel.close(promise: nil)
            }
        }
    }

    private func connection(to destination: SIPTransportEndpoint, serverName: String?) -> EventLoopFuture<Channel> {
        if let open = connections[destination] { return eventLoop.makeSucceededFuture(open) }
        if let pending = pendingConnections[destination] { return pending }
        guard connections.count < configuration.maximumConnections else {
            return eventLoop.makeFailedFuture(SIPTransportError(.tooManyConnections, "\(connections.count) open"))
        }
        let transport = destination.transport
        let tlsHost = transport.isSecure ? (serverName ?? "") : nil
        let handshake = transport.isWebSocket ? eventLoop.makePromise(of: Channel.self) : nil
        var bootstrap = ClientBootstrap(group: eventLoop)
        // From the address we listen on, when it is a specific one: Via's sent-by names it, and
        // a peer that must open a connection back for a response (ours closed) connects there.
        if let local = listeners[transport]?.localAddress ?? listeners.values.first?.localAddress, let ip = local.ipAddress,
            ip != "0.0.0.0", ip != "::", local.protocol == destination.address.protocol,
            let source = try? NIOCore.SocketAddress(ipAddress: ip, port: 0)
        {
            bootstrap = bootstrap.bind(to: source)
        }
        let connect = bootstrap
            .connectTimeout(TimeAmount(configuration.connectTimeout))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.socketOption(.so_sndbuf), value: Self.streamSendBufferSize)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let handshake {
                        try self.configureWebSocketClient(
                            channel, to: destination, serverName: serverName, clientTLSHost: tlsHost, handshake: handshake)
                    } else {
                        try self.configureStream(channel, transport: transport, serverTLS: nil, clientTLSHost: tlsHost, inbound: false)
                    }
                }
            }
            .connect(to: destination.address)
            .flatMap { channel -> EventLoopFuture<Channel> in
                // For TLS, wait for the handshake so a certificate failure fails this send, not a later one.
                let secured =
                    (try? channel.pipeline.syncOperations.handler(type: SIPTLSHandshakeWaiter.self))?.handshake
                    ?? channel.eventLoop.makeSucceededFuture(channel)
                guard let handshake else { return secured }
                // A WebSocket is open once its own handshake is done too, within the connect timeout.
                let timeout = channel.eventLoop.scheduleTask(in: TimeAmount(self.configuration.connectTimeout)) {
                    handshake.fail(SIPTransportError(.connectFailed, "\(destination): no WebSocket handshake answer"))
                    channel.close(promise: nil)
                }
                handshake.futureResult.whenComplete { _ in timeout.cancel() }
                return secured.flatMap { _ in handshake.futureResult }
            }
            .flatMapErrorThrowing { error -> Channel in
                handshake?.fail(error)
                if let error = error as? SIPTransportError { throw error }
                if error is NIOSSLError || error is BoringSSLError {
                    throw SIPTransportError(.tlsFailed, "\(destination): \(error)")
                }
                throw SIPTransportError(.connectFailed, "\(destination): \(error)")
            }
        pendingConnections[destination] = connect
        connect.whenComplete { _ in self.pendingConnections[destination] = nil }
        return connect
    }

    /// Builds a stream pipeline: TLS (server or client side) if asked, then the SIP framer.
    func configureStream(
        _ channel: Channel, transport: SIPTransportProtocol, serverTLS: NIOSSLContext?, clientTLSHost: String?, inbound: Bool
    ) throws {
        if let serverTLS {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: serverTLS))
            if let tls = configuration.tlsServer, SIPTLSIdentity.verifiesPeer(tls.certificateVerification) {
                try channel.pipeline.syncOperations.addHandler(identityRecorder(for: channel, transport: transport))
            }
        } else if let clientTLSHost {
            let isIP = (try? NIOCore.SocketAddress(ipAddress: clientTLSHost, port: 0)) != nil
            let name = clientTLSHost.isEmpty || isIP ? nil : clientTLSHost
            try channel.pipeline.syncOperations.addHandler(
                SIPTLSPinning.clientHandler(context: clientTLS, serverHostname: name, pins: configuration.pinnedPublicKeyDigests))
            if SIPTLSIdentity.verifiesPeer(configuration.tlsClient.certificateVerification) {
                try channel.pipeline.syncOperations.addHandler(identityRecorder(for: channel, transport: transport))
            }
            try channel.pipeline.syncOperations.addHandler(SIPTLSHandshakeWaiter(promise: channel.eventLoop.makePromise()))
        }
        try addIdleHandlers(channel)
        if transport.isWebSocket { return }
        try channel.pipeline.syncOperations.addHandler(
            SIPStreamHandler(transport: transport, parser: parser, events: streamEvents, limits: streamLimits, isInbound: inbound))
    }

    func addIdleHandlers(_ channel: Channel) throws {
        try channel.pipeline.syncOperations.addHandler(
            IdleStateHandler(allTimeout: TimeAmount(configuration.idleConnectionTimeout)))
        try channel.pipeline.syncOperations.addHandler(SIPIdleCloser())
    }

    /// The transport layer's side of every stream connection, called on the loop.
    var streamEvents: SIPStreamEvents {
        SIPStreamEvents(
            opened: { [weak self] remote, channel, inbound in self?.connectionOpened(remote, channel, inbound: inbound) },
            proven: { [weak self] remote, channel in
                if self?.connections[remote] === channel { self?.unproven[remote] = nil }
            },
            closed: { [weak self] remote, channel, error in self?.connectionClosed(remote, channel, error) },
            deliver: onEvent,
            refused: { [weak self] refusal in self?.countRefusal(refusal) }
        )
    }

    var streamLimits: SIPStreamLimits {
        SIPStreamLimits(
            messageCompletionTimeout: TimeAmount(configuration.messageCompletionTimeout),
            maximumPendingOutputBytes: configuration.maximumPendingOutputBytes)
    }

    /// The message parser every connection shares.
    var messageParser: SIPMessageParser { parser }

    private func countRefusal(_ refusal: SIPWebSocketRefusal) {
        webSocketRefusals[refusal, default: 0] += 1
        logger.debug("refused a WebSocket peer: \(refusal)")
    }

    /// How many WebSocket connections and handshakes were refused, by reason.
    package func webSocketRefusalCounts() -> EventLoopFuture<[SIPWebSocketRefusal: Int]> {
        eventLoop.submit { self.webSocketRefusals }
    }

    /// The same, on ``eventLoop`` only.
    package func webSocketRefusalCountsOnLoop() -> [SIPWebSocketRefusal: Int] {
        eventLoop.preconditionInEventLoop()
        return webSocketRefusals
    }

    private func identityRecorder(for channel: Channel, transport: SIPTransportProtocol) -> SIPTLSIdentityRecorder {
        SIPTLSIdentityRecorder { [weak self] names in
            guard let self, let address = channel.remoteAddress else { return }
            let remote = SIPTransportEndpoint(transport: transport, address: address)
            if self.connections[remote] === channel, !names.isEmpty { self.tlsIdentities[remote] = names }
        }
    }

    private func connectionOpened(_ remote: SIPTransportEndpoint, _ channel: Channel, inbound isInbound: Bool) {
        guard !isShutDown else {
            channel.close(promise: nil)
            return
        }
        if isInbound {
            let source = remote.address.ipAddress ?? ""
            guard inboundPerSource[source, default: 0] < configuration.maximumConnectionsPerSource else {
                logger.debug("refused a connection from \(remote): \(configuration.maximumConnectionsPerSource) open from that address")
                channel.close(promise: nil)
                return
            }
            if connections.count >= configuration.maximumConnections, !evictOldestUnproven() {
                channel.close(promise: nil)
                return
            }
            inboundPerSource[source, default: 0] += 1
            inbound.insert(remote)
            unproven[remote] = .now()
        } else if connections.count >= configuration.maximumConnections {
            channel.close(promise: nil)
            return
        }
        connections[remote] = channel
    }

    /// Closes the inbound connection that has been open longest without sending a message, to
    /// make room for a new one; false if every connection has sent one.
    private func evictOldestUnproven() -> Bool {
        guard let (oldest, _) = unproven.min(by: { $0.value < $1.value }), let channel = connections[oldest] else { return false }
        logger.debug("closing \(oldest): no message yet and the connection table is full")
        forget(oldest)
        channel.close(promise: nil)
        return true
    }

    private func connectionClosed(_ remote: SIPTransportEndpoint, _ channel: Channel, _ error: SIPTransportError?) {
        guard connections[remote] === channel else { return }
        forget(remote)
        onEvent(.connectionClosed(remote: remote, error: error))
    }

    /// Takes `remote` out of the connection tables.
    private func forget(_ remote: SIPTransportEndpoint) {
        connections[remote] = nil
        unproven[remote] = nil
        tlsIdentities[remote] = nil
        if inbound.remove(remote) != nil, let source = remote.address.ipAddress {
            inboundPerSource.decrementCount(source)
        }
    }

    // MARK: - Shutdown

    /// Closes every socket. Later sends fail with `.shutDown`.
    package func shutdown() -> EventLoopFuture<Void> {
        eventLoop.flatSubmit {
            self.isShutDown = true
            let channels = Array(self.connections.values) + Array(self.listeners.values)
            self.udpSocket?.close()
            self.connections = [:]
            self.unproven = [:]
            self.inbound = []
            self.inboundPerSource = [:]
            self.tlsIdentities = [:]
            self.listeners = [:]
            self.udpSocket = nil
            let closes = channels.map { $0.close().recover { _ in } }
            return EventLoopFuture.andAllComplete(closes, on: self.eventLoop)
        }
    }
}
