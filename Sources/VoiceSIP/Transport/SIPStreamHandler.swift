import NIOCore

/// Frames a TCP or TLS byte stream into SIP messages (Content-Length, RFC 3261 §18.3), answers
/// RFC 5626 CRLFCRLF pings with a CRLF pong, and tells the transport layer when the connection
/// opens and closes. A stream that cannot be framed is reported as malformed and closed.
final class SIPStreamHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var framer: SIPStreamFramer
    private let transport: SIPTransportProtocol
    private let events: SIPStreamEvents
    private var remote: SIPTransportEndpoint?
    private var closeError: SIPTransportError?

    init(transport: SIPTransportProtocol, parser: SIPMessageParser, events: SIPStreamEvents) {
        self.transport = transport
        self.framer = SIPStreamFramer(parser: parser)
        self.events = events
    }

    func channelActive(context: ChannelHandlerContext) {
        if let address = context.channel.remoteAddress {
            let endpoint = SIPTransportEndpoint(transport: transport, address: address)
            remote = endpoint
            events.opened(endpoint, context.channel)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let remote { events.closed(remote, context.channel, closeError) }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        guard let remote else { return }
        framer.append(buffer.readableBytesView)
        while true {
            do {
                guard let frame = try framer.next() else { return }
                switch frame {
                case .message(let message):
                    events.deliver(.received(message, source: remote))
                case .keepAlivePing:
                    var pong = context.channel.allocator.buffer(capacity: 2)
                    pong.writeStaticString("\r\n")
                    context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
                }
            } catch {
                let rest = framer.drainBuffered()
                events.deliver(.malformed(error, bytes: rest, source: remote))
                closeError = SIPTransportError(.connectionClosed, "unframeable stream: \(error)")
                // Close on a later loop turn, so a 400 the user queued in response still goes out first.
                let channel = context.channel
                channel.eventLoop.execute { channel.close(promise: nil) }
                return
            }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        closeError = SIPTransportError(.connectionClosed, "\(error)")
        context.close(promise: nil)
    }
}

/// The transport layer's callbacks for one stream connection, run on the connection's event loop.
struct SIPStreamEvents: Sendable {
    var opened: @Sendable (SIPTransportEndpoint, Channel) -> Void
    var closed: @Sendable (SIPTransportEndpoint, Channel, SIPTransportError?) -> Void
    var deliver: @Sendable (SIPTransportEvent) -> Void
}
