/// The thresholds of the Sinch call-quality events (``CallQualityWarningEvent``); the defaults
/// are Sinch's.
package struct CallQualityEventConfiguration: Sendable, Hashable {
    /// Round-trip time above which ``CallQualityWarningEvent/highRemoteInboundRtt(_:mediaStream:)``
    /// triggers, and below which it recovers, in ms. Default 300.
    package var rttThresholdMs: Double
    /// Inbound jitter above which a sample counts as bad, in ms. Default 30.
    package var jitterThresholdMs: Double
    /// Inbound loss fraction (0…1) above which a sample counts as bad. Default 0.01 (1 %).
    package var packetLossThreshold: Double
    /// Bad samples among the most recent ``sampleWindow`` that trigger jitter and loss. Default 3 of 4.
    package var badSamples: Int
    /// Samples (one a second) the jitter and loss rules look at. Default 4.
    package var sampleWindow: Int
    /// How long no authenticated RTP may arrive, while the call is established and the peer is
    /// expected to send (not on hold), before ``CallQualityWarningEvent/missingMediaStream(_:)``
    /// triggers. Sinch uses ICE's state, which this SDK does not have. Default 2 s.
    package var missingMediaWindow: Duration
    /// How far back ``CallQualityWarningEvent/constantAudioLevel(_:source:)`` looks. Default 20 s.
    package var constantLevelWindow: Duration
    /// The standard deviation, as a fraction of full scale, below which the level counts as
    /// constant. Default 0.005 (0.5 %).
    package var constantLevelDeviation: Double
    /// How far back ``CallQualityWarningEvent/zeroAudioLevel(_:source:)`` looks. Default 2 s.
    package var zeroLevelWindow: Duration
    /// Output volume (0…1) below which ``CallQualityWarningEvent/lowOSOutputVolumeLevel(_:)``
    /// triggers. Default 0.25.
    package var lowOutputVolume: Double

    /// Creates a configuration; every default is Sinch's.
    package init(
        rttThresholdMs: Double = 300, jitterThresholdMs: Double = 30, packetLossThreshold: Double = 0.01, badSamples: Int = 3,
        sampleWindow: Int = 4, missingMediaWindow: Duration = .seconds(2), constantLevelWindow: Duration = .seconds(20),
        constantLevelDeviation: Double = 0.005, zeroLevelWindow: Duration = .seconds(2), lowOutputVolume: Double = 0.25
    ) {
        self.rttThresholdMs = rttThresholdMs
        self.jitterThresholdMs = jitterThresholdMs
        self.packetLossThreshold = packetLossThreshold
        self.badSamples = max(1, badSamples)
        self.sampleWindow = max(self.badSamples, sampleWindow)
        self.missingMediaWindow = missingMediaWindow
        self.constantLevelWindow = constantLevelWindow
        self.constantLevelDeviation = constantLevelDeviation
        self.zeroLevelWindow = zeroLevelWindow
        self.lowOutputVolume = lowOutputVolume
    }
}
