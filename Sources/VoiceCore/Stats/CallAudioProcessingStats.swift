import VoiceMedia

/// The voice processing on the call's audio device: which stages run, and the echo canceller's
/// figures under WebRTC's statistics names (`RTCAudioSourceStats`).
public struct CallAudioProcessingStats: Hashable, Sendable {
    /// Whether echo cancellation runs now.
    public var echoCancellation: Bool
    /// Whether noise suppression runs now.
    public var noiseSuppression: Bool
    /// Whether automatic gain control runs now.
    public var autoGainControl: Bool
    /// Whether the high-pass filter runs now.
    public var highPassFilter: Bool
    /// The far party's level as played over its echo's level in the microphone, dB: how much
    /// the room and the device attenuate the echo. Nil while echo cancellation is off or has not
    /// measured yet.
    public var echoReturnLoss: Double?
    /// The echo's level in the microphone over what is left of it after cancellation, dB. Nil
    /// while echo cancellation is off or has not measured yet.
    public var echoReturnLossEnhancement: Double?
    /// Why processing does not run as asked (the call goes on): no playback side (no echo
    /// cancellation), or a format the processor cannot take (nothing runs).
    public var fallback: AudioProcessingFallback?

    /// Creates processing statistics (nothing running).
    package init(
        echoCancellation: Bool = false, noiseSuppression: Bool = false, autoGainControl: Bool = false, highPassFilter: Bool = false,
        echoReturnLoss: Double? = nil, echoReturnLossEnhancement: Double? = nil, fallback: AudioProcessingFallback? = nil
    ) {
        self.echoCancellation = echoCancellation
        self.noiseSuppression = noiseSuppression
        self.autoGainControl = autoGainControl
        self.highPassFilter = highPassFilter
        self.echoReturnLoss = echoReturnLoss
        self.echoReturnLossEnhancement = echoReturnLossEnhancement
        self.fallback = fallback
    }

    /// The statistics of a device's processing status.
    package init(_ status: AudioProcessingStatus) {
        self.init(
            echoCancellation: status.active.echoCancellation, noiseSuppression: status.active.noiseSuppression,
            autoGainControl: status.active.autoGainControl, highPassFilter: status.active.highPassFilter,
            echoReturnLoss: status.echoReturnLoss, echoReturnLossEnhancement: status.echoReturnLossEnhancement,
            fallback: status.fallback)
    }
}
