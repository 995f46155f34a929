import NIOCore
import NIOHTTP1
import NIOWebSocket
import VoiceSIP
import VoiceSupport

/// The `sip` WebSocket subprotocol (RFC 7118 §4): offered by a client, echoed by a server.
enum SIPWebSocketSubprotocol {
    static let name = "sip"
    static let header = "Sec-WebSocket-Protocol"

    /// Whether a `Sec-WebSocket-Protocol` header list names `sip`.
    static func isOffered(in headers: HTTPHeaders) -> Bool {
        headers[header].contains { value in
            value.split(separator: ",").contains { $0.filter { $0 != " " && $0 != "\t" }.lowercased() == name }
        }
    }
}

/// The client side of the handshake (RFC 6455 §4.1): sends the upgrade request once the
/// connection (and its TLS) is up, and fails `promise` with a typed error when the server
/// answers anything but the upgrade, closes, or breaks the handshake. On success the upgrader
/// removes it and completes `promise`.
final class SIPWebSocketClientHandshake: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let head: HTTPRequestHead
    private let destination: SIPTransportEndpoint
    let promise: EventLoopPromise<Channel>

    init(path: String, host: String, destination: SIPTransportEndpoint, promise: EventLoopPromise<Channel>) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host)
        headers.add(name: SIPWebSocketSubprotocol.header, value: SIPWebSocketSubprotocol.name)
        headers.add(name: "Content-Length", value: "0")
        self.head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
        self.destination = destination
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Only a response that is not the upgrade gets here.
        if case .head(let response) = unwrapInboundIn(data) {
            fail(context, "the server answered HTTP \(response.status.code) \(response.status.reasonPhrase)")
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        fail(context, "\(error)")
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(SIPTransportError(.connectFailed, "\(destination): closed during the WebSocket handshake"))
        context.fireChannelInactive()
    }

    /// Removed by the upgrade (the promise has succeeded), or with a connection that never
    /// became active.
    func handlerRemoved(context: ChannelHandlerContext) {
        promise.fail(SIPTransportError(.connectFailed, "\(destination): no WebSocket connection"))
    }

    private func fail(_ context: ChannelHandlerContext, _ why: String) {
        promise.fail(SIPTransportError(.connectFailed, "\(destination): WebSocket handshake failed: \(why)"))
        context.close(promise: nil)
    }
}

/// The server side's answer to an HTTP request the WebSocket upgrader did not take: 400 to a
/// WebSocket handshake without the `sip` subprotocol, 426 to anything else, then the close.
/// It also closes a connection whose handshake does not come within `timeout`. The upgrader
/// removes it once the handshake is done.
final class SIPWebSocketServerGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let timeout: TimeAmount
    private let refused: @Sendable (SIPWebSocketRefusal) -> Void
    private var deadline: Scheduled<Void>?
    private var answered = false

    init(timeout: TimeAmount, refused: @escaping @Sendable (SIPWebSocketRefusal) -> Void) {
        self.timeout = timeout
        self.refused = refused
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let request) = unwrapInboundIn(data), !answered else { return }
        answered = true
        let isUpgrade = request.headers["Upgrade"].contains { $0.lowercased() == "websocket" }
        let refusal: SIPWebSocketRefusal = isUpgrade ? .noSIPSubprotocol : .notWebSocket
        refused(refusal)
        var headers = HTTPHeaders()
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Content-Length", value: "0")
        let status: HTTPResponseStatus = isUpgrade ? .badRequest : .upgradeRequired
        if !isUpgrade {
            headers.add(name: "Upgrade", value: "websocket")
            headers.add(name: SIPWebSocketSubprotocol.header, value: SIPWebSocketSubprotocol.name)
        }
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // The upgrader's refusal comes before the request it refused, which is answered above.
        if error is NIOWebSocketUpgradeError { return }
        // An unparseable request: the HTTP error handler answers 400; count it and close.
        if !answered {
            answered = true
            refused(.notWebSocket)
        }
        context.close(promise: nil)
    }
}
