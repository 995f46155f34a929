import NIOCore
import VoiceSupport
import NIOSSL
import NIOTLS
import VoiceSIP

/// Who the peer of a TLS connection proved to be: the DNS names of its certificate, once the
/// handshake verified that certificate against our trust roots. An unverified certificate (or
/// none) proves nothing, so the set is empty.
enum SIPTLSIdentity {
    /// Whether `verification` checks the certificate a peer presents.
    static func verifiesPeer(_ verification: CertificateVerification) -> Bool {
        switch verification {
        case .fullVerification, .noHostnameVerification: true
        case .none(let options): options.validatePresentedCertificates
        }
    }

    /// The lowercased DNS names (subject alternative names) of `certificate`.
    static func dnsNames(_ certificate: NIOSSLCertificate) -> Set<String> {
        var names: Set<String> = []
        for name in certificate._subjectAlternativeNames() where name.nameType == .dnsName {
            names.insert(String(decoding: name.contents, as: UTF8.self).lowercased())
        }
        return names
    }
}

/// Records the verified names of a TLS connection's peer when the handshake completes, then
/// removes itself.
final class SIPTLSIdentityRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let record: (Set<String>) -> Void

    /// - Parameter record: Called on the channel's loop with the peer's verified names.
    init(record: @escaping (Set<String>) -> Void) {
        self.record = record
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            let certificate = (try? context.pipeline.syncOperations.handler(type: NIOSSLHandler.self))?.peerCertificate
            record(certificate.map(SIPTLSIdentity.dnsNames) ?? [])
            context.fireUserInboundEventTriggered(event)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
