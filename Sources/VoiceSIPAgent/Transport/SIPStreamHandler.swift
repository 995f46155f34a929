import NIOCore
import VoiceSupport
import VoiceSIP

/// Frames a TCP or TLS byte stream into SIP messages (Content-Length, RFC 3261 §18.3), answers
/// RFC 5626 CRLFCRLF pings with a CRLF pong, and tells the transport layer when the connection
/// opens and closes. A stream that cannot be framed is reported as malformed and closed.
///
/// It also guards the connection against peers who hold it without using it: a message must
/// arrive whole within ``SIPStreamLimits/messageCompletionTimeout`` of its first byte (and an
/// inbound connection must bring its first one that fast), reading stops while the socket
/// cannot take our writes, and a peer that lets ``SIPStreamLimits/maximumPendingOutputBytes``
/// pile up unread is disconnected.
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
    private let limits: SIPStreamLimits
    private let isInbound: Bool
    /// Closes the connection unless the message under way (or an inbound connection's first
    /// one) completes in time.
    private var completionDeadline: Scheduled<Void>?
    private var hasCompletedMessage = false
    private let output: SIPPendingOutput
    /// How long a closing connection waits for its pending writes (a 400) to drain.
    static let closeDrainTimeout = TimeAmount.seconds(2)

    init(
        transport: SIPTransportProtocol, parser: SIPMessageParser, events: SIPStreamEvents, limits: SIPStreamLimits,
        isInbound: Bool
    ) {
        self.transport = transport
        self.framer = SIPStreamFramer(parser: parser)
        self.events = events
        self.limits = limits
        self.isInbound = isInbound
        self.output = SIPPendingOutput(limit: limits.maximumPendingOutputBytes)
    }

    func channelActive(context: ChannelHandlerContext) {
        if let address = context.channel.remoteAddress {
            let endpoint = SIPTransportEndpoint(transport: transport, address: address)
            remote = endpoint
            events.opened(endpoint, context.channel, isInbound)
        }
        if isInbound { armCompletionDeadline(context, reason: "no complete message") }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        completionDeadline?.cancel()
        completionDeadline = nil
        if let remote { events.closed(remote, context.channel, closeError) }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        guard let remote, !discarding else { return }
        framer.append(buffer.readableBytesView)
        defer { updateCompletionDeadline(context) }
        while true {
            do {
                guard let frame = try framer.next() else { return }
                if !hasCompletedMessage {
                    hasCompletedMessage = true
                    events.proven(remote, context.channel)
                }
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
                case .keepAlivePong:
                    events.deliver(.keepAliveAnswered(source: remote))
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
        let bytes = unwrapOutboundIn(data).readableBytes
        if let error = output.write(data, count: bytes, context: context, promise: promise), closeError == nil {
            // The peer sends but does not read: what we owe it would grow without bound.
            closeError = error
            context.close(promise: nil)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        SIPPendingOutput.writabilityChanged(context)
    }

    /// A message under way must complete in time; a connection between messages has no deadline
    /// (the idle timeout covers it), except an inbound one that has not yet sent a message.
    private func updateCompletionDeadline(_ context: ChannelHandlerContext) {
        if framer.bufferedByteCount > 0 {
            if completionDeadline == nil { armCompletionDeadline(context, reason: "message incomplete") }
        } else if hasCompletedMessage || !isInbound {
            completionDeadline?.cancel()
            completionDeadline = nil
        }
    }

    private func armCompletionDeadline(_ context: ChannelHandlerContext, reason: String) {
        let timeout = limits.messageCompletionTimeout
        let channel = context.channel
        completionDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [weak self] in
            guard let self else { return }
            self.completionDeadline = nil
            self.closeError = SIPTransportError(.connectionClosed, "\(reason) after \(timeout)")
            channel.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        closeError = SIPTransportError(.connectionClosed, "\(error)")
        context.close(promise: nil)
    }
}

/// The transport layer's callbacks for one stream connection, run on the connection's event loop.
struct SIPStreamEvents: Sendable {
    /// The connection is up; the flag says whether the peer opened it.
    var opened: @Sendable (SIPTransportEndpoint, Channel, Bool) -> Void
    /// The connection has delivered its first complete message (or keep-alive).
    var proven: @Sendable (SIPTransportEndpoint, Channel) -> Void
    var closed: @Sendable (SIPTransportEndpoint, Channel, SIPTransportError?) -> Void
    var deliver: @Sendable (SIPTransportEvent) -> Void
    /// A WebSocket peer broke the protocol and was refused.
    var refused: @Sendable (SIPWebSocketRefusal) -> Void = { _ in }
}

/// The limits a stream handler enforces on its connection.
struct SIPStreamLimits: Sendable {
    var messageCompletionTimeout: TimeAmount
    var maximumPendingOutputBytes: Int
}

/// The writes a stream connection (framed TCP/TLS, or a WebSocket) owes its peer: counted until
/// written and refused past the limit (a peer that sends but never reads), with reading paused
/// while the socket cannot take more (backpressure). On the connection's loop only.
final class SIPPendingOutput {
    private var bytes = 0
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Writes `data` (`count` bytes) through `context`; when the peer already owes `limit`,
    /// fails `promise` instead and returns the error to close the connection with.
    func write(_ data: NIOAny, count: Int, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) -> SIPTransportError? {
        guard bytes + count <= limit else {
            promise?.fail(SIPTransportError(.sendFailed, "peer is not reading: \(bytes) bytes pending"))
            return SIPTransportError(.connectionClosed, "peer stopped reading with \(bytes) bytes pending")
        }
        bytes += count
        let written = promise ?? context.eventLoop.makePromise()
        written.futureResult.assumeIsolated().whenComplete { _ in self.bytes -= count }
        context.write(data, promise: written)
        return nil
    }

    /// Backpressure: while the socket cannot take our writes, stop reading what would make more.
    static func writabilityChanged(_ context: ChannelHandlerContext) {
        let writable = context.channel.isWritable
        context.channel.setOption(ChannelOptions.autoRead, value: writable).assumeIsolated().whenSuccess {
            if writable { context.read() }
        }
        context.fireChannelWritabilityChanged()
    }
}
