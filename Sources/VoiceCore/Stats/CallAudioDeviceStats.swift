/// What a call's audio device went through: xruns and suspends recovered in place, and
/// interruptions (the device failed or could not open, and was reopened).
public struct CallAudioDeviceStats: Hashable, Sendable {
    /// Capture overruns recovered (ALSA `EPIPE` on read).
    public var captureXruns: UInt64
    /// Playback underruns recovered (ALSA `EPIPE` on write).
    public var playbackXruns: UInt64
    /// System suspends the device was resumed from in place (ALSA `ESTRPIPE`).
    public var suspendsRecovered: UInt64
    /// Interruptions begun (``CallAudioInterruption``).
    public var interruptions: UInt64
    /// Whether the call's audio is interrupted now.
    public var isInterrupted: Bool

    /// Creates device statistics.
    package init(
        captureXruns: UInt64 = 0, playbackXruns: UInt64 = 0, suspendsRecovered: UInt64 = 0, interruptions: UInt64 = 0,
        isInterrupted: Bool = false
    ) {
        self.captureXruns = captureXruns
        self.playbackXruns = playbackXruns
        self.suspendsRecovered = suspendsRecovered
        self.interruptions = interruptions
        self.isInterrupted = isInterrupted
    }
}
