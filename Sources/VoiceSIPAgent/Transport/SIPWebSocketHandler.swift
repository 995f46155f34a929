import NIOCore
import NIOWebSocket
import VoiceSIP
import VoiceSupport

/// SIP over one WebSocket connection once its handshake is done (RFC 7118): every text or
/// binary message (reassembled from its fragments) is one SIP message, parsed like a datagram;
/// what the transport layer writes goes out as one text frame per message (binary when it is
/// not UTF-8), masked on the client side (RFC 6455 §5.3).
///
/// Keep-alives: a client's CRLFCRLF keep-alive (RFC 5626 §4.4.1, what the user agent's flow
/// liveness writes) leaves as a WebSocket Ping, which every server answers, or with
/// ``SIPWebSocketKeepAlive/crlf`` as a `\r\n\r\n` message as browsers' SIP stacks send it; the
/// Pong, or a `\r\n` message, is reported as ``SIPTransportEvent/keepAliveAnswered(source:)``.
/// A peer's `\r\n\r\n` message is answered with `\r\n`, and Pings with Pongs.
///
/// A peer that breaks the protocol gets a Close frame with the status RFC 6455 §7.4.1 names,
/// then the connection closes, and the refusal is counted: an unmasked client frame, reserved
/// bits or opcodes, or a fragment out of place (1002), a message larger than the parser's limit
/// (1009), a text message that is not UTF-8 (1007). A message that is not SIP is reported as
/// malformed (the user agent answers 400 when a request's headers can be read) and the
/// connection stays, as a bad datagram leaves the UDP socket.
final class SIPWebSocketHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    private let transport: SIPTransportProtocol
    private let parser: SIPMessageParser
    private let events: SIPStreamEvents
    private let limits: SIPStreamLimits
    /// Client side: our frames are masked, the server's must not be. Server side: the reverse.
    private let isClient: Bool
    private let keepAlive: SIPWebSocketKeepAlive
    private var remote: SIPTransportEndpoint?
    private var closeError: SIPTransportError?
    /// A Close frame went out: nothing more is written or delivered.
    private var sentClose = false
    private var hasCompletedMessage = false
    private let output: SIPPendingOutput
    /// The fragments of the message under way (RFC 6455 §5.4), and its opcode.
    private var fragments: ByteBuffer?
    private var fragmentOpcode: WebSocketOpcode = .text
    /// Closes an inbound connection that brings no complete message in time.
    private var firstMessageDeadline: Scheduled<Void>?

    init(
        transport: SIPTransportProtocol, parser: SIPMessageParser, events: SIPStreamEvents, limits: SIPStreamLimits,
        isClient: Bool, keepAlive: SIPWebSocketKeepAlive = .ping
    ) {
        self.transport = transport
        self.parser = parser
        self.events = events
        self.limits = limits
        self.isClient = isClient
        self.keepAlive = keepAlive
        self.output = SIPPendingOutput(limit: limits.maximumPendingOutputBytes)
    }

    /// Added once the handshake is done, on an active channel: the connection counts from here.
    func handlerAdded(context: ChannelHandlerContext) {
        guard let address = context.channel.remoteAddress else { return }
        let endpoint = SIPTransportEndpoint(transport: transport, address: address)
        remote = endpoint
        events.opened(endpoint, context.channel, !isClient)
        if !isClient {
            let timeout = limits.messageCompletionTimeout
            firstMessageDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [weak self] in
                guard let self, !self.hasCompletedMessage else { return }
                self.closeError = SIPTransportError(.connectionClosed, "no complete message after \(timeout)")
                self.fail(context, .policyViolation, nil)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        firstMessageDeadline?.cancel()
        firstMessageDeadline = nil
        if let remote { events.closed(remote, context.channel, closeError) }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard let remote, !sentClose else { return }
        // RFC 6455 §5.1, §5.2: clients mask, servers do not; no extension was negotiated.
        guard (frame.maskKey != nil) != isClient, frame.reservedBits.isEmpty else {
            return fail(context, .protocolError, .protocolError)
        }
        switch frame.opcode {
        case .text, .binary:
            guard fragments == nil else { return fail(context, .protocolError, .protocolError) }
            if frame.fin {
                deliver(frame.unmaskedData, isText: frame.opcode == .text, from: remote, context)
            } else {
                guard frame.length <= parser.limits.maximumMessageSize else {
                    return fail(context, .messageTooLarge, .oversizedMessage)
                }
                fragments = frame.unmaskedData
                fragmentOpcode = frame.opcode
            }
        case .continuation:
            guard var buffer = fragments else { return fail(context, .protocolError, .protocolError) }
            guard buffer.readableBytes + frame.length <= parser.limits.maximumMessageSize else {
                fragments = nil
                return fail(context, .messageTooLarge, .oversizedMessage)
            }
            var part = frame.unmaskedData
            fragments = nil
            buffer.writeBuffer(&part)
            if frame.fin {
                deliver(buffer, isText: fragmentOpcode == .text, from: remote, context)
            } else {
                fragments = buffer
            }
        case .ping:
            guard frame.fin else { return fail(context, .protocolError, .protocolError) }
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: maskKey(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .pong:
            events.deliver(.keepAliveAnswered(source: remote))
        case .connectionClose:
            // Echo the status (RFC 6455 §5.5.1), then close: an orderly end.
            var data = frame.unmaskedData
            let code = data.readWebSocketErrorCode() ?? .normalClosure
            sendClose(context, code: code)
            context.close(promise: nil)
        default:
            fail(context, .protocolError, .protocolError)
        }
    }

    /// One whole message: a keep-alive, or SIP.
    private func deliver(_ payload: ByteBuffer, isText: Bool, from remote: SIPTransportEndpoint, _ context: ChannelHandlerContext) {
        let bytes = Array(payload.readableBytesView)
        guard bytes.count <= parser.limits.maximumMessageSize else { return fail(context, .messageTooLarge, .oversizedMessage) }
        if isText, String(validating: bytes, as: UTF8.self) == nil { return fail(context, .dataInconsistentWithMessage, .invalidText) }
        if !hasCompletedMessage {
            hasCompletedMessage = true
            firstMessageDeadline?.cancel()
            firstMessageDeadline = nil
            events.proven(remote, context.channel)
        }
        if bytes == Self.crlfcrlf {
            var pong = context.channel.allocator.buffer(capacity: 2)
            pong.writeStaticString("\r\n")
            let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: maskKey(), data: pong)
            context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
            return
        }
        if bytes == Self.crlf {
            events.deliver(.keepAliveAnswered(source: remote))
            return
        }
        do {
            events.deliver(.received(try parser.parse(datagram: bytes), source: remote))
        } catch {
            events.deliver(.malformed(error, bytes: bytes, source: remote))
        }
    }

    static let crlfcrlf: [UInt8] = Array("\r\n\r\n".utf8)
    static let crlf: [UInt8] = Array("\r\n".utf8)

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        guard !sentClose else {
            promise?.fail(SIPTransportError(.connectionClosed, "the WebSocket is closing"))
            return
        }
        let frame: WebSocketFrame
        if isClient, keepAlive == .ping, buffer.readableBytesView.elementsEqual(Self.crlfcrlf) {
            // The flow's keep-alive: a Ping, which every WebSocket server answers.
            frame = WebSocketFrame(fin: true, opcode: .ping, maskKey: maskKey(), data: context.channel.allocator.buffer(capacity: 0))
        } else {
            let isText = buffer.withUnsafeReadableBytes { String(validating: $0, as: UTF8.self) != nil }
            frame = WebSocketFrame(fin: true, opcode: isText ? .text : .binary, maskKey: maskKey(), data: buffer)
        }
        if let error = output.write(wrapOutboundOut(frame), count: buffer.readableBytes, context: context, promise: promise), closeError == nil {
            closeError = error
            context.close(promise: nil)
        }
    }

    /// A close asked for by the transport layer (or the idle timer) says so first: Close 1000 (or
    /// 1001 when the peer went idle), then the TCP close.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .all, !sentClose, context.channel.isActive { sendClose(context, code: .normalClosure) }
        context.close(mode: mode, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        SIPPendingOutput.writabilityChanged(context)
    }

    /// Frame-level errors from the decoder below (a frame over its size limit, a fragmented or
    /// long control frame): the status they call for, then close.
    func errorCaught(context: ChannelHandlerContext, error: Error) {
        switch error {
        case NIOWebSocketError.invalidFrameLength:
            fail(context, .messageTooLarge, .oversizedMessage)
        case is NIOWebSocketError:
            fail(context, .protocolError, .protocolError)
        default:
            closeError = SIPTransportError(.connectionClosed, "\(error)")
            context.close(promise: nil)
        }
    }

    /// Ends the connection for a protocol violation: a Close frame with `code`, counted as `refusal`.
    private func fail(_ context: ChannelHandlerContext, _ code: WebSocketErrorCode, _ refusal: SIPWebSocketRefusal?) {
        guard !sentClose else { return }
        if let refusal {
            events.refused(refusal)
            closeError = SIPTransportError(.connectionClosed, "WebSocket \(refusal)")
        }
        let channel = context.channel
        // The Close frame first, then the socket; a peer that does not read gets 2 s.
        let deadline = channel.eventLoop.scheduleTask(in: SIPStreamHandler.closeDrainTimeout) { channel.close(promise: nil) }
        sendClose(context, code: code).whenComplete { _ in
            deadline.cancel()
            channel.close(promise: nil)
        }
    }

    @discardableResult
    private func sendClose(_ context: ChannelHandlerContext, code: WebSocketErrorCode) -> EventLoopFuture<Void> {
        guard !sentClose else { return context.eventLoop.makeSucceededVoidFuture() }
        sentClose = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: maskKey(), data: data)
        let promise = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(frame), promise: promise)
        return promise.futureResult
    }

    private func maskKey() -> WebSocketMaskingKey? { isClient ? .random() : nil }
}

/// Why a WebSocket connection or handshake was refused; the transport layer counts each.
package enum SIPWebSocketRefusal: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A handshake that did not offer the `sip` subprotocol (RFC 7118 §4): HTTP 400.
    case noSIPSubprotocol = "no sip subprotocol"
    /// An HTTP request that is not a WebSocket handshake: HTTP 426.
    case notWebSocket = "not a WebSocket handshake"
    /// A frame against RFC 6455 (unmasked from a client, reserved bits or opcodes, a fragment
    /// out of place, a fragmented or long control frame): Close 1002.
    case protocolError = "protocol error"
    /// A message larger than the SIP parser accepts: Close 1009.
    case oversizedMessage = "message too large"
    /// A text message that is not UTF-8: Close 1007.
    case invalidText = "text not UTF-8"

    package var description: String { rawValue }
}

/// How a WebSocket client keeps its connection checked (the user agent's flow keep-alives).
public enum SIPWebSocketKeepAlive: Sendable, Hashable {
    /// A WebSocket Ping, answered by a Pong (RFC 6455 §5.5.2): every WebSocket server answers it.
    case ping
    /// RFC 5626's `\r\n\r\n` in a message, answered by `\r\n`, as SIP.js and JsSIP send it:
    /// for servers that expect SIP-level keep-alives (Kamailio, Asterisk and FreeSWITCH answer it).
    case crlf
}
