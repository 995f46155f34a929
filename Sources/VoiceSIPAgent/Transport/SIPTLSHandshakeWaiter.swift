import Crypto
import NIOCore
import VoiceSupport
import NIOSSL
import NIOTLS
import VoiceSIP
import VoiceBytes

/// Completes a promise when the TLS handshake on its channel finishes, or fails it when the
/// handshake fails or the connection closes first; then removes itself.
///
/// With pins, the handshake counts only if the server's certificate carries one of the pinned
/// public keys (the SHA-256 of its DER SubjectPublicKeyInfo, as curl's `--pinnedpubkey` and
/// HPKP's `pin-sha256`); otherwise the connection is closed and the promise fails `.tlsFailed`.
/// The certificate was verified against the trust roots before: a pin narrows trust, it never
/// replaces verification.
final class SIPTLSHandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private var promise: EventLoopPromise<Channel>?
    /// Succeeds with the channel once the handshake completed.
    let handshake: EventLoopFuture<Channel>
    /// SHA-256 digests of the public keys the server may prove; empty: any verified key.
    private let pins: [[UInt8]]

    init(promise: EventLoopPromise<Channel>, pins: [[UInt8]] = []) {
        self.promise = promise
        self.handshake = promise.futureResult
        self.pins = pins
    }

    /// The SHA-256 of the leaf certificate's SubjectPublicKeyInfo, or nil when there is none.
    static func publicKeyDigest(of channel: ChannelHandlerContext) -> [UInt8]? {
        guard let handler = try? channel.pipeline.syncOperations.handler(type: NIOSSLHandler.self),
            let certificate = handler.peerCertificate,
            let spki = try? certificate.extractPublicKey().toSPKIBytes()
        else { return nil }
        return Array(SHA256.hash(data: spki))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            if !pins.isEmpty {
                let digest = Self.publicKeyDigest(of: context)
                guard let digest, pins.contains(digest) else {
                    let seen = digest.map { "sha256//" + Base64.encode($0) } ?? "none"
                    promise?.fail(SIPTransportError(.tlsFailed, "the server's public key (\(seen)) matches no pinned key"))
                    promise = nil
                    context.close(promise: nil)
                    return
                }
            }
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
