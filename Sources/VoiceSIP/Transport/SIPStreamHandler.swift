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
    /// The stream could not be framed: what still arrives is dropped until the close.
    private var discarding = false
    /// How long a closing connection waits for its pending writes (a 400) to drain.
    static let closeDrainTimeout = TimeAmount.seconds(2)

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
        guard let remote, !discarding else { return }
        framer.append(buffer.readableBytesView)
        while true {
            do {
                guard let frame = try framer.next() else { return }
                switch frame {
                case .message(let message):
                    events.deliver(.received(message, source: remote))
                case .malformed(let error, let bytes):
                    // Framing held: answer it (400) like a malformed datagram and read on.
                    events.deliver(.malformed(error, bytes: bytes, source: remote))
                case .keepAlivePing:
                    var pong = context.channel.allocator.buffer(capacity: 2)
                    pong.writeStaticString("\r\n")
                    context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
                }
            } catch {
                let rest = framer.drainBuffered()
                events.deliver(.malformed(error, bytes: rest, source: remote))
                closeError = SIPTransportError(.connectionClosed, "unframeable stream: \(error)")
                discarding = true
                Self.closeAfterPendingWrites(context.channel)
                return
            }
        }
    }

    /// Closes `channel` once what was written before, e.g. the 400 the user agent answers a
    /// malformed message with, has gone out: `close` alone would fail writes still waiting for
    /// room in a full socket buffer, as under a flood. Runs on a later loop turn, after the
    /// response queued during the malformed-message event; gives up waiting after
    /// ``closeDrainTimeout`` (a peer that does not read).
    private static func closeAfterPendingWrites(_ channel: Channel) {
        channel.eventLoop.execute {
            let drained = channel.writeAndFlush(channel.allocator.buffer(capacity: 0))
            let deadline = channel.eventLoop.scheduleTask(in: closeDrainTimeout) { channel.close(promise: nil) }
            drained.whenComplete { _ in
                deadline.cancel()
                channel.close(promise: nil)
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
