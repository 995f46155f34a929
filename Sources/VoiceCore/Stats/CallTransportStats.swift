/// How a call's media travels and is keyed, in WebRTC's stats terms: the ICE candidate pair in
/// use and the DTLS transport's state. Empty for a call keyed by SDES.
public struct CallTransportStats: Hashable, Sendable {
    /// The selected candidate pair, `host 10.0.0.2:40000 -> srflx 203.0.113.9:5000`; nil
    /// without ICE or before a pair is selected.
    public var selectedCandidatePair: String?
    /// WebRTC's `RTCDtlsTransportState`: `new`, `connecting`, `connected`, `closed` or
    /// `failed`; nil when the call is not keyed by DTLS.
    public var dtlsState: String?
    /// The SRTP protection profile the DTLS handshake chose (`AEAD_AES_128_GCM`); nil otherwise.
    public var srtpCipher: String?

    /// Creates transport statistics.
    package init(selectedCandidatePair: String? = nil, dtlsState: String? = nil, srtpCipher: String? = nil) {
        self.selectedCandidatePair = selectedCandidatePair
        self.dtlsState = dtlsState
        self.srtpCipher = srtpCipher
    }
}
