/// Why an offer could not be answered or an answer could not be accepted (RFC 3264).
package enum SDPNegotiationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The offer has no audio stream we can take (none, or all disabled with port 0).
    case noAudioStream
    /// No codec in the offer (or answer) is one we support.
    case noCommonCodec
    /// The peer offered SRTP but no `a=crypto` line with a suite we support.
    case noCommonCryptoSuite
    /// The peer offered plain RTP and our policy requires SRTP.
    case encryptionRequired
    /// The peer offered SRTP and our policy is plain RTP only.
    case encryptionNotEnabled
    /// Our policy requires DTLS-SRTP and the peer offered SDES keys, or the session runs on a DTLS
    /// association and a re-offer moves to SDES or plain RTP.
    case dtlsRequired
    /// The peer offered DTLS-SRTP and our policy is SDES only, or the session runs on SDES keys and
    /// a re-offer moves to DTLS (a running stream keeps its key exchange).
    case dtlsNotEnabled
    /// Our policy asks for DTLS-SRTP but ``SDPLocalCapabilities`` lacks what a DTLS description
    /// carries; the text names it. Our fault, not the peer's.
    case dtlsNotConfigured(String)
    /// A DTLS-SRTP description without `a=rtcp-mux`, which WebRTC requires (RFC 8834 §4.5;
    /// Chromium and aiortc refuse SDP without it).
    case rtcpMuxRequired
    /// A DTLS-SRTP description with no `a=fingerprint` we can check: none, or only hash functions
    /// other than SHA-1 and SHA-2 (RFC 8122 §5).
    case noUsableFingerprint
    /// The offer's `a=setup` cannot be answered: `holdconn`, a value RFC 4145 does not define, or
    /// a role that would swap the roles of the DTLS association in force; the text says which.
    case dtlsSetupRefused(String)
    /// The answer rejected our audio stream (port 0).
    case streamRejected
    /// The answer does not answer our offer; the text says how.
    case answerMismatch(String)
    /// A new offer while one is outstanding (ours or theirs): glare.
    case offerPending
    /// An answer arrived with no offer outstanding.
    case noOfferPending

    /// The SIP status to reject an offer with: 491 for glare, 500 for a protocol-order problem or
    /// our own missing DTLS configuration, 488 (Not Acceptable Here) for everything about the media.
    package var sipStatusCode: Int {
        switch self {
        case .offerPending: 491
        case .noOfferPending, .dtlsNotConfigured: 500
        default: 488
        }
    }

    /// A human-readable explanation.
    package var description: String {
        switch self {
        case .noAudioStream: "SDP: no usable audio stream"
        case .noCommonCodec: "SDP: no common codec"
        case .noCommonCryptoSuite: "SDP: no common SRTP crypto suite"
        case .encryptionRequired: "SDP: peer offered plain RTP but SRTP is required"
        case .encryptionNotEnabled: "SDP: peer requires SRTP but encryption is disabled"
        case .dtlsRequired: "SDP: peer offered SDES or plain RTP but DTLS-SRTP is required"
        case .dtlsNotEnabled: "SDP: peer offered DTLS-SRTP, which this session does not use"
        case let .dtlsNotConfigured(what): "SDP: DTLS-SRTP needs \(what)"
        case .rtcpMuxRequired: "SDP: DTLS-SRTP media without a=rtcp-mux"
        case .noUsableFingerprint: "SDP: DTLS-SRTP media without a SHA-1 or SHA-2 a=fingerprint"
        case let .dtlsSetupRefused(why): "SDP: cannot answer a=setup: \(why)"
        case .streamRejected: "SDP: the answer rejected the audio stream"
        case let .answerMismatch(why): "SDP: answer does not match the offer: \(why)"
        case .offerPending: "SDP: an offer is already outstanding"
        case .noOfferPending: "SDP: answer without an outstanding offer"
        }
    }
}
