import VoiceDTLS

/// The certificate a client proves itself with in DTLS-SRTP calls: a self-signed ECDSA P-256
/// certificate whose SHA-256 fingerprint every SDP of the client carries (`a=fingerprint`).
///
/// A client makes one when it starts unless its configuration gives one. Save it with
/// ``pemEncoded()`` and load it with ``init(certificatePEM:privateKeyPEM:)`` to keep the same
/// fingerprint across runs (for peers that pin it). Immutable; safe to share.
public final class DTLSIdentity: Sendable, CustomStringConvertible {
    let certificate: DTLSCertificate

    init(certificate: DTLSCertificate) { self.certificate = certificate }

    /// A fresh self-signed ECDSA P-256 certificate, valid for a year.
    /// - Throws: ``VoiceError`` (53400) when the TLS library cannot make one.
    public static func generate() throws(VoiceError) -> DTLSIdentity {
        do throws(DTLSError) {
            return DTLSIdentity(certificate: try DTLSCertificate.generate())
        } catch {
            throw VoiceError(.mediaClientLocalDescFailed, failureReason: error.description)
        }
    }

    /// The identity saved by ``pemEncoded()``.
    /// - Throws: ``VoiceError`` (53400) when either text does not parse or they do not belong together.
    public convenience init(certificatePEM: String, privateKeyPEM: String) throws(VoiceError) {
        do throws(DTLSError) {
            self.init(certificate: try DTLSCertificate(certificatePEM: certificatePEM, privateKeyPEM: privateKeyPEM))
        } catch {
            throw VoiceError(.mediaClientLocalDescFailed, failureReason: error.description)
        }
    }

    /// The certificate and its private key as PEM text. Keep the key as secret as a password.
    public func pemEncoded() throws(VoiceError) -> (certificate: String, privateKey: String) {
        do throws(DTLSError) {
            return try certificate.pemEncoded()
        } catch {
            throw VoiceError(.mediaClientLocalDescFailed, failureReason: error.description)
        }
    }

    /// The SHA-256 fingerprint as SDP writes it: `sha-256 AB:CD:…`.
    public var fingerprint: String { certificate.fingerprint.description }

    public var description: String { "DTLSIdentity(\(fingerprint))" }
}
