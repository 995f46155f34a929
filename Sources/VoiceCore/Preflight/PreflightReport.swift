import Foundation

/// What a preflight test found, as Twilio's `PreflightTest.Report` gives it: a quality rating,
/// the minimum, average and maximum of each figure, how long each part of the connection took,
/// the ICE candidates and the pair media used, the warnings raised, and every sample.
public struct PreflightReport: Hashable, Sendable {
    /// The test call's SID; nil if it never had one.
    public var callSid: String?
    /// The rating of the average MOS; nil when no sample had a MOS (no media came back).
    public var callQuality: PreflightCallQuality?
    /// Round-trip time in milliseconds, as ``CallStatsReport/roundTripTimeMs`` (RTCP's, or the
    /// ICE checks' before RTCP measured one), over the samples that had one. (The pair's own
    /// ``CallICECandidatePairStats/currentRoundTripTime`` is in seconds, as W3C's.)
    public var roundTripTimeMs: PreflightStatistic?
    /// Interarrival jitter of the echoed audio, in ms.
    public var jitterMs: PreflightStatistic?
    /// Packets lost each second, as a fraction (0…1) of those expected.
    public var packetsLostFraction: PreflightStatistic?
    /// Estimated MOS (1…4.5) each second.
    public var mos: PreflightStatistic?
    /// How long each part of setting up the call took.
    public var networkTiming: PreflightNetworkTiming
    /// From the start of the test to its end.
    public var testDuration: Duration
    /// Our ICE candidates (empty for a call without ICE).
    public var localCandidates: [CallICECandidate]
    /// The echo's ICE candidates, signaled and learned from its checks.
    public var remoteCandidates: [CallICECandidate]
    /// The candidate pair media used, with its counters, when the call used ICE.
    public var selectedCandidatePair: CallICECandidatePairStats?
    /// Whether media needed a TURN relay (either end of the selected pair relayed); nil without ICE.
    public var isTURNRequired: Bool?
    /// Quality warnings raised during the test, in order.
    public var warnings: [PreflightWarning]
    /// One sample a second, from the first with media.
    public var samples: [PreflightSample]
}

/// Twilio's preflight rating of the average MOS: above 4.2 excellent, 4.1–4.2 great, 3.7 up to
/// 4.1 good, 3.1 up to 3.7 fair, below 3.1 degraded. (Twilio's own code leaves 4.0–4.1 and
/// 3.6–3.7 to degraded, which its documentation does not say; here they fall to the band
/// below them, good and fair.)
public enum PreflightCallQuality: String, Hashable, Sendable, CaseIterable {
    case excellent
    case great
    case good
    case fair
    case degraded

    /// The rating of an average MOS.
    public init(averageMOS mos: Double) {
        switch mos {
        case let m where m > 4.2: self = .excellent
        case let m where m >= 4.1: self = .great
        case let m where m >= 3.7: self = .good
        case let m where m >= 3.1: self = .fair
        default: self = .degraded
        }
    }
}

/// The smallest, mean and largest of one figure over a test's samples.
public struct PreflightStatistic: Hashable, Sendable {
    public var minimum: Double
    public var average: Double
    public var maximum: Double

    /// Over `values`; nil when there are none.
    init?(_ values: [Double]) {
        guard let first = values.first else { return nil }
        var low = first, high = first, sum = 0.0
        for value in values {
            low = min(low, value)
            high = max(high, value)
            sum += value
        }
        minimum = low
        maximum = high
        average = sum / Double(values.count)
    }
}

/// How long each part of a test call's setup took; nil for a part that did not happen (no ICE,
/// no DTLS) or did not finish.
public struct PreflightNetworkTiming: Hashable, Sendable {
    /// From the start of the test (the INVITE goes at once) to the answer (Twilio's `signaling`).
    public var signaling: Duration?
    /// ICE: from the first check to a working pair (`ice`).
    public var ice: Duration?
    /// The DTLS handshake, once ICE had a pair (`dtls`).
    public var dtls: Duration?
    /// From the start of the test to the call connected with media (`peerConnection`).
    public var peerConnection: Duration?
}

/// One second of a test call.
public struct PreflightSample: Hashable, Sendable {
    /// When it was taken, from the start of the test.
    public var elapsed: Duration
    /// RTT in ms: RTCP's, or the ICE checks' until RTCP measured one; nil with neither.
    public var roundTripTimeMs: Double?
    /// Jitter of the audio coming back, in ms.
    public var jitterMs: Double
    /// Packets lost in this second as a fraction of those expected.
    public var packetsLostFraction: Double
    /// Estimated MOS from this second's loss, the RTT and the receiver's delay; nil without a
    /// round trip.
    public var mos: Double?
    /// Totals so far.
    public var packetsSent: UInt64
    public var packetsReceived: UInt64
    public var packetsLost: Int64
    public var bytesSent: UInt64
    public var bytesReceived: UInt64
}

/// A quality warning raised during a test.
public struct PreflightWarning: Hashable, Sendable {
    /// Which warning.
    public var warning: CallQualityWarning
    /// When it was raised, from the start of the test.
    public var elapsed: Duration
}
