import CVoiceDTLS

/// A DTLS identity: a certificate and its private key, and the TLS context made from them.
///
/// A client makes one self-signed ECDSA P-256 certificate (``generate(commonName:validityDays:)``)
/// and uses it for every call, as browsers do; SDP announces its fingerprint. It can be saved as
/// PEM and loaded again so that the fingerprint stays the same across runs.
///
/// Immutable once made; OpenSSL allows new associations from one context on several threads.
package final class DTLSCertificate: @unchecked Sendable {
    let identity: OpaquePointer
    /// The certificate's SHA-256 fingerprint, what `a=fingerprint:sha-256` carries.
    package let fingerprint: DTLSFingerprint

    private init(identity: OpaquePointer) throws(DTLSError) {
        self.identity = identity
        guard let fingerprint = Self.fingerprint(of: identity, algorithm: "sha-256") else {
            voice_dtls_identity_free(identity)
            throw .certificate("no SHA-256 fingerprint")
        }
        self.fingerprint = fingerprint
    }

    deinit { voice_dtls_identity_free(identity) }

    /// A fresh self-signed ECDSA P-256 certificate, valid from a day ago for `validityDays` days.
    package static func generate(commonName: String = "VoiceSDK", validityDays: Int = 365) throws(DTLSError) -> DTLSCertificate {
        guard validityDays > 0, validityDays <= 3650 else { throw .certificate("validity of \(validityDays) days") }
        guard let identity = voice_dtls_identity_generate(commonName, Int32(validityDays)) else {
            throw .certificate("could not generate an ECDSA P-256 certificate")
        }
        return try DTLSCertificate(identity: identity)
    }

    /// The certificate and private key saved by ``pemEncoded()``.
    /// - Throws: ``DTLSError/certificate(_:)`` when either does not parse or they do not match.
    package convenience init(certificatePEM: String, privateKeyPEM: String) throws(DTLSError) {
        let cert = Array(certificatePEM.utf8)
        let key = Array(privateKeyPEM.utf8)
        let made = cert.withUnsafeBufferPointer { c in
            key.withUnsafeBufferPointer { k in
                c.withMemoryRebound(to: CChar.self) { cc in
                    k.withMemoryRebound(to: CChar.self) { kk in
                        voice_dtls_identity_from_pem(cc.baseAddress, cc.count, kk.baseAddress, kk.count)
                    }
                }
            }
        }
        guard let identity = made else {
            throw .certificate("the PEM certificate or private key does not parse, or they do not match")
        }
        try self.init(identity: identity)
    }

    /// The certificate and its private key as PEM text. Keep the key as secret as a password.
    package func pemEncoded() throws(DTLSError) -> (certificate: String, privateKey: String) {
        var cert: UnsafeMutablePointer<CChar>?
        var key: UnsafeMutablePointer<CChar>?
        var certLength = 0
        var keyLength = 0
        guard voice_dtls_identity_to_pem(identity, &cert, &certLength, &key, &keyLength) == 1,
            let cert, let key
        else { throw .certificate("could not write PEM") }
        defer {
            voice_dtls_free_buffer(cert)
            voice_dtls_free_buffer(key)
        }
        return (String(cString: cert), String(cString: key))
    }

    /// The fingerprint with another hash function (`sha-1` … `sha-512`), or nil for one we lack.
    package func fingerprint(algorithm: String) -> DTLSFingerprint? {
        Self.fingerprint(of: identity, algorithm: algorithm)
    }

    private static func fingerprint(of identity: OpaquePointer, algorithm: String) -> DTLSFingerprint? {
        var digest = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        guard voice_dtls_identity_fingerprint(identity, algorithm, &digest, &length) == 1 else { return nil }
        return DTLSFingerprint(algorithm: algorithm, bytes: Array(digest.prefix(Int(length))))
    }
}
