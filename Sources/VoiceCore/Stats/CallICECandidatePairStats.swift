import VoiceICE

/// One candidate pair of the call's ICE check list and what went over it, as W3C webrtc-stats'
/// `RTCIceCandidatePairStats` counts it. The counts come from the ICE agent (checks) and the
/// media driver (media datagrams); nothing is estimated.
public struct CallICECandidatePairStats: Hashable, Sendable {
    /// A pair's check state (`state`, RFC 8445 §6.1.2.6).
    public enum State: String, Hashable, Sendable {
        /// Not checked until a pair of its foundation succeeds.
        case frozen
        /// To be checked.
        case waiting
        /// A check is in flight.
        case inProgress = "in-progress"
        /// A check succeeded: the pair works.
        case succeeded
        /// Its checks went unanswered or were refused.
        case failed
    }

    /// Our candidate (for a server-reflexive one, the host candidate it sends from) and the peer's.
    public var local: CallICECandidate
    public var remote: CallICECandidate
    /// `state`.
    public var state: State
    /// `nominated`: a check with USE-CANDIDATE succeeded on it.
    public var nominated: Bool
    /// Whether media travels on it now (the transport's `selectedCandidatePairId`).
    public var selected: Bool
    /// `priority` (RFC 8445 §6.1.2.3).
    public var priority: UInt64
    /// `packetsSent`, `bytesSent`: media datagrams (RTP, RTCP, DTLS) sent on it and their UDP
    /// payload bytes; ICE's own checks are not included. Counted while the pair carries media.
    public var packetsSent: UInt64 = 0
    public var bytesSent: UInt64 = 0
    /// `packetsReceived`, `bytesReceived`: the same, received.
    public var packetsReceived: UInt64 = 0
    public var bytesReceived: UInt64 = 0
    /// `requestsSent`: connectivity checks sent, retransmissions and consent checks apart.
    public var requestsSent: UInt64 = 0
    /// `consentRequestsSent`: consent freshness checks (RFC 7675) sent.
    public var consentRequestsSent: UInt64 = 0
    /// Retransmitted checks (W3C's `requestsSent` leaves them out; Chromium's
    /// `retransmissionsSent` counts them).
    public var retransmissionsSent: UInt64 = 0
    /// `requestsReceived`: the peer's checks that authenticated.
    public var requestsReceived: UInt64 = 0
    /// `responsesSent`: our answers to them.
    public var responsesSent: UInt64 = 0
    /// `responsesReceived`: answers to our checks that authenticated.
    public var responsesReceived: UInt64 = 0
    /// `currentRoundTripTime` in seconds: the last check's round trip; nil before one is
    /// measured. Only checks answered on their first transmission count.
    public var currentRoundTripTime: Double?
    /// `totalRoundTripTime` in seconds, over `responsesReceived`'s measured share
    /// (``roundTripTimeMeasurements``).
    public var totalRoundTripTime: Double = 0
    /// How many round trips ``totalRoundTripTime`` sums.
    public var roundTripTimeMeasurements: UInt64 = 0

    init(_ stats: ICEPairStats, localIsControlling: Bool, traffic: ICEPairTraffic, relay: TURNServer.Transport?) {
        local = CallICECandidate(stats.pair.local, relay: relay)
        remote = CallICECandidate(stats.pair.remote)
        switch stats.pair.state {
        case .frozen: state = .frozen
        case .waiting: state = .waiting
        case .inProgress: state = .inProgress
        case .succeeded: state = .succeeded
        case .failed: state = .failed
        }
        nominated = stats.pair.nominated
        selected = stats.isSelected
        priority = stats.pair.priority(localIsControlling: localIsControlling)
        packetsSent = traffic.packetsSent
        bytesSent = traffic.bytesSent
        packetsReceived = traffic.packetsReceived
        bytesReceived = traffic.bytesReceived
        let counters = stats.counters
        requestsSent = counters.requestsSent
        consentRequestsSent = counters.consentRequestsSent
        retransmissionsSent = counters.retransmissionsSent
        requestsReceived = counters.requestsReceived
        responsesSent = counters.responsesSent
        responsesReceived = counters.responsesReceived
        currentRoundTripTime = counters.currentRoundTripTime.map { $0.seconds }
        totalRoundTripTime = counters.totalRoundTripTime.seconds
        roundTripTimeMeasurements = counters.roundTripTimeMeasurements
    }
}
