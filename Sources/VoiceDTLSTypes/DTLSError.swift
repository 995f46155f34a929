/// Why a DTLS-SRTP association failed. Each case is one cause a user can act on.
package enum DTLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The handshake did not finish within ``DTLSConfiguration/handshakeTimeout``.
    case handshakeTimedOut
    /// The peer did not answer our retransmitted flights and the DTLS library gave up.
    case noAnswer
    /// The peer's certificate matches none of the fingerprints its SDP announced (RFC 5763 §5):
    /// someone else answered, or the signaling was tampered with.
    case fingerprintMismatch(expected: [DTLSFingerprint], actual: [DTLSFingerprint])
    /// The peer's SDP announced only fingerprints with hash functions we cannot check.
    case unsupportedFingerprintAlgorithm(String)
    /// The handshake finished without an SRTP protection profile both sides support (the peer
    /// offered no `use_srtp` extension, or none of our profiles).
    case noSRTPProfile
    /// The peer ended the handshake with a fatal alert.
    case peerAlert(String)
    /// The handshake failed on our side (a malformed or unexpected message, no common cipher).
    case handshakeFailed(String)
    /// A certificate could not be made, read or written.
    case certificate(String)

    package var description: String {
        switch self {
        case .handshakeTimedOut: "DTLS handshake timed out"
        case .noAnswer: "DTLS peer did not answer retransmitted handshake messages"
        case .fingerprintMismatch(let expected, let actual):
            "DTLS peer certificate \(actual.map(\.description).joined(separator: ", ")) matches none of the SDP fingerprints \(expected.map(\.description).joined(separator: ", "))"
        case .unsupportedFingerprintAlgorithm(let name): "unsupported a=fingerprint hash function \(name)"
        case .noSRTPProfile: "DTLS handshake negotiated no SRTP protection profile"
        case .peerAlert(let text): "DTLS peer alert: \(text)"
        case .handshakeFailed(let text): "DTLS handshake failed: \(text)"
        case .certificate(let text): "DTLS certificate: \(text)"
        }
    }
}
