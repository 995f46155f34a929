/// One per-second measurement fed to `CallQualityWarningDetector`.
///
/// Build one from the media stream's statistics with ``CallQualitySampler`` (loss per interval)
/// or ``init(streamStats:isMuted:isOnHold:)`` (loss over the last RTCP interval).
package struct CallQualitySample: Hashable, Sendable {
    /// Round-trip time in milliseconds; `nil` while not yet measured. A `nil` or non-finite value
    /// does not enter the RTT window.
    package var rttMs: Double?
    /// Inbound interarrival jitter in milliseconds. A non-finite value does not enter the jitter window.
    package var jitterMs: Double
    /// Fraction of inbound packets lost over the sample's interval, from 0 to 1 (not a percentage).
    /// Values outside 0…1 are clamped; a non-finite value does not enter the loss window.
    package var packetsLostFraction: Double
    /// Estimated mean opinion score (1…5); `nil` before any media was received. A `nil` or
    /// non-finite value does not enter the MOS window.
    package var mos: Double?
    /// Level of the captured audio, 0…32767 (clamped).
    package var inputLevel: Int
    /// Whether the microphone is not being sent: the call is muted (or on hold). Such samples
    /// reset the input-level window instead of entering it.
    package var isMuted: Bool

    /// Creates a sample.
    package init(
        rttMs: Double? = nil, jitterMs: Double = 0, packetsLostFraction: Double = 0, mos: Double? = nil,
        inputLevel: Int = 0, isMuted: Bool = false
    ) {
        self.rttMs = rttMs
        self.jitterMs = jitterMs
        self.packetsLostFraction = packetsLostFraction
        self.mos = mos
        self.inputLevel = inputLevel
        self.isMuted = isMuted
    }
}
