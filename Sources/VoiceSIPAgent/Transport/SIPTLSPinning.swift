import Crypto
import NIOCore
import NIOSSL
import VoiceBytes

/// Public-key pinning of the TLS servers we connect to, as curl's `--pinnedpubkey` and HPKP's
/// `pin-sha256`: the server's certificate must carry one of the pinned keys (the SHA-256 of its
/// DER SubjectPublicKeyInfo).
///
/// The check runs inside the handshake, after NIOSSL's own verification of the chain and the
/// name: a server whose key is not pinned fails the handshake, so no byte of it reaches the SIP
/// layer and nothing is sent to it. A pin narrows trust; it never replaces verification.
enum SIPTLSPinning {
    /// The client handler for a connection to `serverHostname`: NIOSSL's, with the pin check
    /// added when there are pins.
    static func clientHandler(context: NIOSSLContext, serverHostname: String?, pins: [[UInt8]]) throws -> NIOSSLClientHandler {
        guard !pins.isEmpty else { return try NIOSSLClientHandler(context: context, serverHostname: serverHostname) }
        return try NIOSSLClientHandler._makeSSLClientHandler(
            context: context, serverHostname: serverHostname,
            additionalPeerCertificateVerificationCallback: { certificate, channel in
                let digest = publicKeyDigest(of: certificate)
                guard let digest, pins.contains(digest) else {
                    let seen = digest.map { "sha256//" + Base64.encode($0) } ?? "none"
                    return channel.eventLoop.makeFailedFuture(
                        SIPTransportError(.tlsFailed, "the server's public key (\(seen)) matches no pinned key"))
                }
                return channel.eventLoop.makeSucceededVoidFuture()
            })
    }

    /// The SHA-256 of a certificate's SubjectPublicKeyInfo, or nil when it cannot be read.
    static func publicKeyDigest(of certificate: NIOSSLCertificate) -> [UInt8]? {
        guard let spki = try? certificate.extractPublicKey().toSPKIBytes() else { return nil }
        return Array(SHA256.hash(data: spki))
    }
}
