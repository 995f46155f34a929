import NIOCore
import NIOHTTP1
import NIOSSL
import NIOWebSocket
import VoiceSIP
import VoiceSupport

/// SIP over WebSocket (RFC 7118) on the transport layer: the pipelines of the connections we
/// open (`ws://`, `wss://`) and accept (a listening `.ws` or `.wss` transport). Below the
/// handshake a WebSocket connection is a TCP or TLS connection like the others (idle timeout,
/// limits); once it is done, ``SIPWebSocketHandler`` carries one SIP message per frame and the
/// connection joins the table.
extension SIPTransportLayer {
    /// The largest frame accepted: the largest SIP message the parser takes, plus room for the
    /// frame header.
    var webSocketMaximumFrameSize: Int { messageParser.limits.maximumMessageSize + 16 }

    /// A connection we open: TLS for `wss`, the HTTP upgrade request (path from the
    /// configuration, `Host` the server's name, the `sip` subprotocol), then SIP frames.
    /// `handshake` completes with the channel once the server accepted the upgrade with `sip`.
    func configureWebSocketClient(
        _ channel: Channel, to destination: SIPTransportEndpoint, serverName: String?, clientTLSHost: String?,
        handshake: EventLoopPromise<Channel>
    ) throws {
        let transport = destination.transport
        try configureStream(channel, transport: transport, serverTLS: nil, clientTLSHost: clientTLSHost, inbound: false)
        let host = serverName ?? destination.hostForURI
        let defaultPort = destination.port == transport.defaultPort
        let client = SIPWebSocketClientHandshake(
            path: configuration.webSocketPath, host: defaultPort ? host : "\(host):\(destination.port)", destination: destination,
            promise: handshake)
        let events = streamEvents
        let limits = streamLimits
        let parser = messageParser
        let keepAlive = configuration.webSocketKeepAlive
        let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: webSocketMaximumFrameSize, automaticErrorHandling: false) {
            channel, response in
            // RFC 6455 §4.1: a server that did not pick `sip` did not agree to carry SIP.
            guard SIPWebSocketSubprotocol.isOffered(in: response.headers) else {
                handshake.fail(SIPTransportError(.connectFailed, "\(destination): the server did not accept the sip subprotocol"))
                return channel.close()
            }
            return channel.eventLoop.makeCompletedFuture {
                let sync = channel.pipeline.syncOperations
                try sync.addHandler(
                    SIPWebSocketHandler(
                        transport: transport, parser: parser, events: events, limits: limits, isClient: true, keepAlive: keepAlive))
                handshake.succeed(channel)
                sync.removeHandler(context: try sync.context(handlerType: SIPWebSocketClientHandshake.self), promise: nil)
            }
        }
        try channel.pipeline.syncOperations.addHTTPClientHandlers(
            withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
        try channel.pipeline.syncOperations.addHandler(client)
    }

    /// A connection a browser or gateway opens to our listening WebSocket: TLS for `wss`, the
    /// HTTP server until a handshake offering `sip` upgrades it; other requests are answered
    /// (400, 426) and closed by ``SIPWebSocketServerGate``.
    package func configureWebSocketServer(_ channel: Channel, transport: SIPTransportProtocol, serverTLS: NIOSSLContext?) throws {
        try configureStream(channel, transport: transport, serverTLS: serverTLS, clientTLSHost: nil, inbound: true)
        let events = streamEvents
        let limits = streamLimits
        let parser = messageParser
        let gate = SIPWebSocketServerGate(timeout: limits.messageCompletionTimeout, refused: events.refused)
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: webSocketMaximumFrameSize, automaticErrorHandling: false,
            shouldUpgrade: { channel, request in
                guard SIPWebSocketSubprotocol.isOffered(in: request.headers) else {
                    return channel.eventLoop.makeSucceededFuture(nil)
                }
                var headers = HTTPHeaders()
                headers.add(name: SIPWebSocketSubprotocol.header, value: SIPWebSocketSubprotocol.name)
                return channel.eventLoop.makeSucceededFuture(headers)
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    sync.removeHandler(context: try sync.context(handlerType: SIPWebSocketServerGate.self), promise: nil)
                    try sync.addHandler(
                        SIPWebSocketHandler(transport: transport, parser: parser, events: events, limits: limits, isClient: false))
                }
            })
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }), withErrorHandling: true)
        try channel.pipeline.syncOperations.addHandler(gate)
    }
}
