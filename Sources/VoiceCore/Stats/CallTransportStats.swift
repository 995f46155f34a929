import VoiceICE
import VoiceMediaTypes

/// How a call's media travels and is keyed, in WebRTC's stats terms: the ICE candidate pair in
/// use, the DTLS transport's state and the SRTP profile. Empty for a call keyed by SDES.
public struct CallTransportStats: Hashable, Sendable {
    /// The selected candidate pair; nil without ICE or before a pair is selected.
    public var selectedCandidatePair: CallICECandidatePair?
    /// The DTLS transport's state (WebRTC's `RTCDtlsTransportState`); nil when the call is not
    /// keyed by DTLS.
    public var dtlsState: DTLSState?
    /// The SRTP protection profile the DTLS handshake chose; nil otherwise.
    public var srtpCipher: SRTPProfile?
    /// Our ICE candidates (`RTCIceCandidateStats` of type `local-candidate`); empty without ICE.
    public var localCandidates: [CallICECandidate] = []
    /// The peer's: signaled, and learned from its checks (`remote-candidate`).
    public var remoteCandidates: [CallICECandidate] = []
    /// Every pair of the check list, highest priority first (`RTCIceCandidatePairStats`); the
    /// one media travels on is ``CallICECandidatePairStats/selected``.
    public var candidatePairs: [CallICECandidatePairStats] = []

    /// WebRTC's `RTCDtlsTransportState`.
    public enum DTLSState: Hashable, Sendable {
        /// Not started.
        case new
        /// The handshake runs.
        case connecting
        /// Keys are agreed.
        case connected
        /// Closed (close_notify sent or received).
        case closed
        /// The handshake or the keys failed.
        case failed
    }

    /// An SRTP protection profile (RFC 5764, RFC 7714).
    public enum SRTPProfile: Hashable, Sendable {
        /// `SRTP_AES128_CM_HMAC_SHA1_80`.
        case aes128CMHmacSHA1_80
        /// `SRTP_AES128_CM_HMAC_SHA1_32`.
        case aes128CMHmacSHA1_32
        /// `SRTP_AES256_CM_HMAC_SHA1_80`.
        case aes256CMHmacSHA1_80
        /// `SRTP_AES256_CM_HMAC_SHA1_32`.
        case aes256CMHmacSHA1_32
        /// `SRTP_AEAD_AES_128_GCM`.
        case aeadAES128GCM
        /// `SRTP_AEAD_AES_256_GCM`.
        case aeadAES256GCM
    }

    /// Transport statistics from the stream's figures.
    package init(
        selectedCandidatePair: ICESelectedPair? = nil, dtlsState: DTLSTransportState? = nil, srtpSuite: SRTPSuite? = nil,
        ice: ICEStatistics? = nil, traffic: ICETrafficLedger = ICETrafficLedger(), relay: TURNServer.Transport? = nil
    ) {
        self.selectedCandidatePair = selectedCandidatePair.map(CallICECandidatePair.init)
        if let ice {
            localCandidates = ice.localCandidates.map { CallICECandidate($0, relay: relay) }
            remoteCandidates = ice.remoteCandidates.map { CallICECandidate($0) }
            candidatePairs = ice.pairs.map {
                CallICECandidatePairStats(
                    $0, localIsControlling: ice.localIsControlling, traffic: traffic.traffic(of: ICEPairAddresses($0.pair)), relay: relay)
            }
            // The selected pair's ends in full (priority, foundation) where the list has them.
            if let selected = candidatePairs.first(where: \.selected) {
                self.selectedCandidatePair = CallICECandidatePair(local: selected.local, remote: selected.remote)
            }
        }
        self.dtlsState = dtlsState.map {
            switch $0 {
            case .new: .new
            case .connecting: .connecting
            case .connected: .connected
            case .closed: .closed
            case .failed: .failed
            }
        }
        self.srtpCipher = srtpSuite.map {
            switch $0 {
            case .aesCM128HmacSHA1_80: .aes128CMHmacSHA1_80
            case .aesCM128HmacSHA1_32: .aes128CMHmacSHA1_32
            case .aes256CMHmacSHA1_80: .aes256CMHmacSHA1_80
            case .aes256CMHmacSHA1_32: .aes256CMHmacSHA1_32
            case .aeadAES128GCM: .aeadAES128GCM
            case .aeadAES256GCM: .aeadAES256GCM
            }
        }
    }
}
