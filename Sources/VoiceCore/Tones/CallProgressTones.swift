import VoiceMedia
import VoiceSupport

/// Tones the SDK plays into the call's audio device while an outgoing call progresses: ringback
/// while the callee rings without sending early media, and a busy tone when the callee is busy
/// or rejects. Off by default (a server has no one to play them to); set
/// ``VoiceClientConfiguration/progressTones``.
public struct CallProgressTones: Sendable, Hashable {
    /// One tone: frequencies summed, on and off times.
    package struct Tone: Sendable, Hashable {
        /// Frequencies played together, in Hz.
        package var frequencies: [Double]
        /// On and off times of the cadence; `off` zero sounds continuously.
        package var on: Duration
        package var off: Duration

        /// Creates a tone.
        package init(frequencies: [Double], on: Duration, off: Duration) {
            self.frequencies = frequencies
            self.on = on
            self.off = off
        }
    }

    /// Played while the callee rings without early media; nil: none.
    package var ringback: Tone?
    /// Played after a busy or rejected outgoing call (486, 600, 603); nil: none.
    package var busy: Tone?
    /// How long the busy tone plays.
    package var busyDuration: Duration

    /// Creates a set of tones.
    package init(ringback: Tone?, busy: Tone?, busyDuration: Duration = .seconds(3)) {
        self.ringback = ringback
        self.busy = busy
        self.busyDuration = busyDuration
    }

    /// North America (ITU-T E.180): ringback 440 + 480 Hz, 2 s on, 4 s off; busy 480 + 620 Hz, 0.5 s on, 0.5 s off.
    public static let northAmerica = CallProgressTones(
        ringback: Tone(frequencies: [440, 480], on: .seconds(2), off: .seconds(4)),
        busy: Tone(frequencies: [480, 620], on: .milliseconds(500), off: .milliseconds(500)))

    /// Europe (CEPT): ringback 425 Hz, 1 s on, 4 s off; busy 425 Hz, 0.5 s on, 0.5 s off.
    public static let europe = CallProgressTones(
        ringback: Tone(frequencies: [425], on: .seconds(1), off: .seconds(4)),
        busy: Tone(frequencies: [425], on: .milliseconds(500), off: .milliseconds(500)))
}

extension CallProgressTones.Tone {
    /// The media layer's form.
    var progressTone: ProgressTone {
        ProgressTone(
            frequencies: frequencies, onMilliseconds: Int(MediaTime(on).nanoseconds / 1_000_000),
            offMilliseconds: Int(MediaTime(off).nanoseconds / 1_000_000))
    }
}
