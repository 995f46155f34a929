import VoiceRTP
import VoiceMedia

extension CallQualitySample {
    /// A sample from one snapshot of the media stream's statistics, using the stream's own loss
    /// figure (``AudioStreamStats/fractionLost``, over the last RTCP interval). For loss over
    /// exactly the last second, feed consecutive snapshots to ``CallQualitySampler``.
    ///
    /// MOS is `nil` until a packet has been received (the stream's figure is a default until then).
    /// The stream measures its input level after muting and holding, so `isMuted` is set when
    /// either `isMuted` or `isOnHold` is.
    package init(streamStats stats: AudioStreamStats, isMuted: Bool, isOnHold: Bool = false) {
        self.init(
            rttMs: stats.rttMs, jitterMs: stats.jitterMs, packetsLostFraction: stats.fractionLost,
            mos: stats.packetsReceived > 0 ? stats.mos : nil, inputLevel: stats.inputLevel,
            isMuted: isMuted || isOnHold)
    }
}
