import NIOCore
import VoiceSupport
import NIOSSL
import NIOTLS
import VoiceSIP

/// Completes a promise when the TLS handshake on its channel finishes, or fails it when the
/// handshake fails or the connection closes first; then removes itself.
final class SIPTLSHandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private var promise: EventLoopPromise<Channel>?
    /// Succeeds with the channel once the handshake completed.
    let handshake: EventLoopFuture<Channel>

    init(promise: EventLoopPromise<Channel>) {
        self.promise = promise
        self.handshake = promise.futureResult
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            promise?.succeed(context.channel)
            promise = nil
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        promise?.fail(SIPTransportError(.tlsFailed, "\(error)"))
        promise = nil
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.fail(SIPTransportError(.connectionClosed, "closed during the TLS handshake"))
        promise = nil
        context.fireChannelInactive()
    }

    /// A connection that never became active (the connect failed: the peer's address went away)
    /// is torn down without `channelInactive`: the promise fails here rather than leak.
    func handlerRemoved(context: ChannelHandlerContext) {
        promise?.fail(SIPTransportError(.connectionClosed, "closed before the TLS handshake"))
        promise = nil
    }
}

/// Closes a connection when NIO's IdleStateHandler reports it idle.
final class SIPIdleCloser: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
