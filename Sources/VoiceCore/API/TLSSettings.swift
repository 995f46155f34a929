import NIOSSL
import VoiceBytes
import VoiceSIPAgent

/// The TLS settings of SIP over TLS and secure WebSockets: whom the client trusts, how it proves
/// itself, and which server keys it accepts.
///
/// Certificates are verified by default: the chain against the system's trust store, the
/// name against the server's host name.
public struct TLSSettings: Sendable, Hashable {
    /// PEM files of CA certificates trusted besides the system's (a private CA).
    public var trustedCertificateFiles: [String]
    /// Our certificate chain (PEM file): the server certificate when the client accepts TLS or
    /// `wss` connections, and the client certificate it offers when a server asks for one.
    public var certificateFile: String?
    /// The private key of ``certificateFile`` (PEM file).
    public var privateKeyFile: String?
    /// Public keys a server the client connects to may prove, as pjsip's and curl's pinning does:
    /// base64 SHA-256 digests of the server certificate's SubjectPublicKeyInfo, written
    /// `sha256//…` or bare (`openssl x509 -pubkey -noout | openssl pkey -pubin -outform der |
    /// openssl dgst -sha256 -binary | base64`). Empty (the default): any key whose certificate
    /// verifies. A server that proves another key fails the request with a transport error,
    /// also when its certificate verifies.
    public var pinnedPublicKeys: [String]

    /// Creates settings; the defaults trust the system's CAs, prove nothing and pin nothing.
    public init(
        trustedCertificateFiles: [String] = [], certificateFile: String? = nil, privateKeyFile: String? = nil,
        pinnedPublicKeys: [String] = []
    ) {
        self.trustedCertificateFiles = trustedCertificateFiles
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
        self.pinnedPublicKeys = pinnedPublicKeys
    }

    /// Applies the settings to the transport's TLS configurations; throws when a file cannot be
    /// read, a key does not go with its certificate's presence, or a pin is not a SHA-256 digest.
    package func apply(to transport: inout SIPTransportConfiguration) throws(VoiceError) {
        do {
            for file in trustedCertificateFiles {
                let certificates = try NIOSSLCertificate.fromPEMFile(file)
                transport.tlsClient.additionalTrustRoots.append(.certificates(certificates))
            }
            switch (certificateFile, privateKeyFile) {
            case (let certificateFile?, let privateKeyFile?):
                let chain = try NIOSSLCertificate.fromPEMFile(certificateFile).map { NIOSSLCertificateSource.certificate($0) }
                let key = NIOSSLPrivateKeySource.privateKey(try NIOSSLPrivateKey(file: privateKeyFile, format: .pem))
                transport.tlsClient.certificateChain = chain
                transport.tlsClient.privateKey = key
                if transport.tlsServer == nil {
                    transport.tlsServer = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: key)
                }
            case (nil, nil):
                break
            default:
                throw VoiceError(.malformedRequest, failureReason: "TLS: a certificate file and a private key file go together")
            }
        } catch let error as VoiceError {
            throw error
        } catch {
            throw VoiceError(.malformedRequest, failureReason: "TLS: \(error)")
        }
        transport.pinnedPublicKeyDigests = try pinnedPublicKeys.map { pin throws(VoiceError) in
            let text = pin.hasPrefix("sha256//") ? String(pin.dropFirst("sha256//".count)) : pin
            guard let digest = try? Base64.decode(text.utf8, alphabet: .standard, allowsPadding: true, requiresCanonical: true), digest.count == 32 else {
                throw VoiceError(.malformedRequest, failureReason: "TLS: pin \(pin) is not a base64 SHA-256 digest")
            }
            return digest
        }
    }
}
