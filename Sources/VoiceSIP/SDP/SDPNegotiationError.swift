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
    /// The answer rejected our audio stream (port 0).
    case streamRejected
    /// The answer does not answer our offer; the text says how.
    case answerMismatch(String)
    /// A new offer while one is outstanding (ours or theirs): glare.
    case offerPending
    /// An answer arrived with no offer outstanding.
    case noOfferPending

    /// The SIP status to reject an offer with: 491 for glare, 500 for a protocol-order problem,
    /// 488 (Not Acceptable Here) for everything about the media.
    package var sipStatusCode: Int {
        switch self {
        case .offerPending: 491
        case .noOfferPending: 500
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
        case .streamRejected: "SDP: the answer rejected the audio stream"
        case let .answerMismatch(why): "SDP: answer does not match the offer: \(why)"
        case .offerPending: "SDP: an offer is already outstanding"
        case .noOfferPending: "SDP: answer without an outstanding offer"
        }
    }
}
