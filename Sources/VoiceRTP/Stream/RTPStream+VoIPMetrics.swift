import VoiceSupport

extension RTPStream {
    /// Our VoIP Metrics block (RFC 3611 §4.7) about the peer's stream:
    /// - loss (RFC 3550's count, before FEC or RED repair) and jitter-buffer discards since
    ///   reception began;
    /// - bursts and gaps with a gap threshold of 1 (a burst is a run of consecutive losses, what
    ///   the peer's redundancy must span; gaps are averaged over one more than the bursts, the
    ///   gaps around them);
    /// - the round trip, our buffering delay and the jitter buffer's delays.
    ///
    /// Levels, R factors and MOS are left unavailable: nothing here measures them as the RFC
    /// defines them.
    func voipMetrics() -> RTCPVoIPMetrics {
        var block = RTCPVoIPMetrics(ssrc: remoteSSRC)
        let expected = max(0, receiverStats.expectedPackets)
        let buffer = jitterBuffer.stats
        block.lossRate = RTPBurstGapCounter.density(UInt64(max(0, Int64(receiverStats.cumulativeLost))), of: UInt64(expected))
        block.discardRate = RTPBurstGapCounter.density(UInt64(max(0, buffer.late)), of: UInt64(expected))
        let bursts = receiverStats.burstsAndGaps
        // The peer's packets are as long as its frames, which need not be ours.
        let received = receivedFrameUnits * 1_000 / max(1, rtpClockRate)
        let figures = bursts.metrics(packetMilliseconds: received > 0 ? received : configuration.ptime)
        block.burstDensity = figures.burstDensity
        block.gapDensity = figures.gapDensity
        block.burstDuration = figures.burstDuration
        block.gapDuration = figures.gapDuration
        block.gmin = UInt8(clamping: bursts.gmin)
        block.roundTripDelay = Self.milliseconds(rtcp.rtt ?? .zero)
        block.endSystemDelay = Self.milliseconds(buffer.currentDelay + .milliseconds(Int64(configuration.ptime)))
        // Concealment unspecified (00), jitter buffer adaptive (11), rate 0.
        block.receiverConfiguration = 0x30
        block.jitterBufferNominal = Self.milliseconds(buffer.targetDelay)
        block.jitterBufferMaximum = Self.milliseconds(buffer.currentDelay)
        block.jitterBufferAbsoluteMaximum = Self.milliseconds(configuration.jitterBuffer.maxDelay)
        return block
    }

    /// The peer's VoIP Metrics about our stream: its burst figures go to the RED policy.
    mutating func noteVoIPMetrics(_ metrics: RTCPVoIPMetrics) {
        rtcp.remoteVoIPMetrics = metrics
        guard configuration.redPayloadType != nil else { return }
        redPolicy.burstsReported(metrics, packetMilliseconds: configuration.ptime)
    }

    private static func milliseconds(_ time: MediaTime) -> UInt16 {
        UInt16(clamping: max(0, Int(time.milliseconds.rounded())))
    }
}
