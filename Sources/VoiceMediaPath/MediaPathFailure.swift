import VoiceDTLSTypes

/// Why a stream's WebRTC media path failed: the call cannot have audio.
package enum MediaPathFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Every ICE candidate pair failed: no path to the peer.
    case iceFailed
    /// No candidate of ours could be paired with one of the peer's (`local` and `remote`
    /// candidates: none share an address family and component, or one side has none), so ICE
    /// failed before a single check.
    case noCandidatePair(local: Int, remote: Int)
    /// The DTLS handshake failed (timed out, a fingerprint mismatch, no SRTP profile, an alert).
    case dtls(DTLSError)

    package var description: String {
        switch self {
        case .iceFailed: "ICE failed: no candidate pair reached the peer"
        case .noCandidatePair(let local, let remote):
            "ICE failed: none of our \(local) candidates can pair with the peer's \(remote) (no shared address family)"
        case .dtls(let error): error.description
        }
    }
}
