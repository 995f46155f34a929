import VoiceRTP
import VoiceSupport

/// What a preflight test collects, as a value: a sample from each second's stream figures, the
/// warnings raised, and at the end the report. It reads no clock: the driver passes each event's
/// time (``MediaTime``), so a test drives it in virtual time.
package struct PreflightRecorder: Sendable {
    private let startedAt: MediaTime
    private var sampler = CallQualitySampler()
    package private(set) var samples: [PreflightSample] = []
    package private(set) var warnings: [PreflightWarning] = []
    private var answeredAt: MediaTime?
    private var connectedAt: MediaTime?

    package init(startedAt: MediaTime) { self.startedAt = startedAt }

    /// The far end answered (a 2xx to the INVITE).
    package mutating func answered(at now: MediaTime) {
        if answeredAt == nil { answeredAt = now }
    }

    /// The call connected, with its media.
    package mutating func connected(at now: MediaTime) {
        if connectedAt == nil { connectedAt = now }
    }

    /// The sample of the stream's figures at `now`: this second's loss, and a MOS from it, the
    /// RTT and the receiver's delay (ITU-T G.107 as the stream's own estimate does). Samples
    /// before any media came back are not kept. The round trip is RTCP's, or before its first
    /// report the ICE checks'; a sample with neither has no MOS (without the delay it would
    /// read too well).
    @discardableResult
    package mutating func sample(_ stats: AudioStreamStats, at now: MediaTime) -> PreflightSample? {
        let quality = sampler.sample(from: stats, isMuted: false)
        guard stats.packetsReceived > 0 else { return nil }
        // RTCP's round trip, or before its first report, the ICE checks' (as browsers' stats
        // give the candidate pair's).
        let iceRoundTrip = stats.iceStatistics?.pairs.first(where: \.isSelected)?.counters.currentRoundTripTime?.milliseconds
        let roundTrip = stats.rttMs ?? iceRoundTrip
        let mos = roundTrip.map { rtt in
            let oneWay = rtt / 2 + stats.jitterBuffer.targetDelay.milliseconds + 20
            return EModel.forCodec(stats.codec).mos(oneWayDelayMs: oneWay, packetLossPercent: quality.packetsLostFraction * 100)
        }
        let sample = PreflightSample(
            elapsed: Duration(now - startedAt), roundTripTimeMs: roundTrip, jitterMs: stats.jitterMs,
            packetsLostFraction: quality.packetsLostFraction, mos: mos, packetsSent: stats.packetsSent,
            packetsReceived: stats.packetsReceived, packetsLost: stats.packetsLost, bytesSent: stats.bytesSent,
            bytesReceived: stats.bytesReceived)
        samples.append(sample)
        return sample
    }

    /// `raised` warnings went up at `now`.
    package mutating func raised(_ raised: Set<CallQualityWarning>, at now: MediaTime) -> [PreflightWarning] {
        let new = raised.sorted { $0.rawValue < $1.rawValue }.map { PreflightWarning(warning: $0, elapsed: Duration(now - startedAt)) }
        warnings += new
        return new
    }

    /// The report at `now`, with the stream's last figures (`stats`: its ICE and DTLS timings,
    /// candidates and pair) when there were any.
    package func report(callSid: String?, stats: AudioStreamStats?, at now: MediaTime) -> PreflightReport {
        let transport = stats.map {
            CallTransportStats(
                selectedCandidatePair: $0.selectedCandidatePair, dtlsState: $0.dtlsState, srtpSuite: $0.dtlsSRTPSuite,
                ice: $0.iceStatistics, traffic: $0.iceTraffic, relay: $0.relayTransport)
        }
        let pair = transport?.candidatePairs.first(where: \.selected)
        let mos = PreflightStatistic(samples.compactMap(\.mos))
        var timing = PreflightNetworkTiming()
        timing.signaling = answeredAt.map { Duration($0 - startedAt) }
        timing.peerConnection = connectedAt.map { Duration($0 - startedAt) }
        if let stats, stats.iceStatistics != nil, stats.selectedCandidatePair != nil {
            timing.ice = .microseconds(Int64((stats.iceConnectMilliseconds * 1_000).rounded()))
        }
        if let stats, stats.dtlsState == .connected {
            timing.dtls = .microseconds(Int64((stats.dtlsHandshakeMilliseconds * 1_000).rounded()))
        }
        return PreflightReport(
            callSid: callSid, callQuality: mos.map { PreflightCallQuality(averageMOS: $0.average) },
            roundTripTimeMs: PreflightStatistic(samples.compactMap(\.roundTripTimeMs)), jitterMs: PreflightStatistic(samples.map(\.jitterMs)),
            packetsLostFraction: PreflightStatistic(samples.map(\.packetsLostFraction)), mos: mos, networkTiming: timing,
            testDuration: Duration(now - startedAt), localCandidates: transport?.localCandidates ?? [],
            remoteCandidates: transport?.remoteCandidates ?? [], selectedCandidatePair: pair,
            isTURNRequired: pair.map { $0.local.candidateType == .relayed || $0.remote.candidateType == .relayed },
            warnings: warnings, samples: samples)
    }
}
