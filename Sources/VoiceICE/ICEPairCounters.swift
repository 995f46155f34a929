import VoiceSupport

/// What the connectivity checks of one candidate pair did, counted as W3C webrtc-stats'
/// `RTCIceCandidatePairStats` counts them.
package struct ICEPairCounters: Hashable, Sendable {
    /// `requestsSent`: checks we sent, retransmissions and consent checks not included.
    package var requestsSent: UInt64 = 0
    /// `consentRequestsSent`: consent freshness checks (RFC 7675) we sent.
    package var consentRequestsSent: UInt64 = 0
    /// Retransmissions of our checks.
    package var retransmissionsSent: UInt64 = 0
    /// `requestsReceived`: the peer's checks that authenticated.
    package var requestsReceived: UInt64 = 0
    /// `responsesSent`: our answers to them (a role conflict's error included).
    package var responsesSent: UInt64 = 0
    /// `responsesReceived`: answers to our checks that authenticated, successes and errors.
    package var responsesReceived: UInt64 = 0
    /// `currentRoundTripTime`: the last round trip measured, from a check answered on its
    /// first transmission (an answer to a retransmitted one could be to either; Karn's rule).
    package var currentRoundTripTime: MediaTime?
    /// `totalRoundTripTime` over the ``roundTripTimeMeasurements`` it sums.
    package var totalRoundTripTime = MediaTime.zero
    package var roundTripTimeMeasurements: UInt64 = 0

    package init() {}

    mutating func measured(_ roundTrip: MediaTime) {
        currentRoundTripTime = roundTrip
        totalRoundTripTime = totalRoundTripTime + roundTrip
        roundTripTimeMeasurements += 1
    }
}

/// One pair of the check list with its state and what its checks did.
package struct ICEPairStats: Hashable, Sendable {
    package var pair: ICECandidatePair
    /// Whether media travels on it now.
    package var isSelected: Bool
    package var counters: ICEPairCounters
}
