/// A call's audio interruption, the Linux form of the audio-session interruption Twilio's SDK
/// handles: the call's audio device failed or could not open for a reason that may pass (the
/// sound server went away, a USB headset was unplugged, another program holds the device).
///
/// While it lasts the call stays connected and both audio tracks are off: the call sends
/// silence (so the peer keeps receiving media) and plays nothing. The SDK reopens the device
/// with backoff, once for all the calls that share it, and resumes their audio by itself.
public struct CallAudioInterruption: Sendable, Hashable {
    /// Whether capture (what the call sends) is interrupted.
    public var capture: Bool
    /// Whether playback (what the call plays) is interrupted.
    public var render: Bool
    /// The device error that began it, or the latest one of a failed reopen.
    public var error: AudioDeviceError

    /// Creates an interruption record.
    package init(capture: Bool, render: Bool, error: AudioDeviceError) {
        self.capture = capture
        self.render = render
        self.error = error
    }
}
