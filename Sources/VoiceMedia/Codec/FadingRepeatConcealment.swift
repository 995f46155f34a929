/// Packet-loss concealment for the codecs that have none of their own (G.711, G.722): the last
/// 10 ms decoded are played back and forth (backwards first, so the waveform continues from the
/// last sample heard, with no jump at the turning points) under a linear fade that reaches
/// silence 60 ms into a loss; the fade restarts after the next good packet.
///
/// Works on the stream's 48 kHz samples. Its buffer is allocated once, at creation.
final class FadingRepeatConcealment {
    /// Samples of history repeated by concealment (10 ms at 48 kHz).
    static let historyLength = 480
    /// Concealment fades to silence over this many 48 kHz samples (60 ms).
    static let fadeLength = 2_880

    /// The last 10 ms of 48 kHz output, oldest first.
    private let history: UnsafeMutableBufferPointer<Int16>
    /// 48 kHz samples concealed since the last good packet.
    private var concealed = 0

    init() {
        history = .allocate(capacity: Self.historyLength)
        history.initialize(repeating: 0)
    }

    deinit { history.deallocate() }

    /// Keeps the tail of what a good packet decoded to, and restarts the fade.
    func remember(_ samples: UnsafeBufferPointer<Int16>) {
        let tail = samples.suffix(Self.historyLength)
        let keep = Self.historyLength - tail.count
        // Slide the newest `keep` old samples to the front, then append the new tail.
        for i in 0..<keep { history[i] = history[i + tail.count] }
        var i = keep
        for s in tail {
            history[i] = s
            i += 1
        }
        concealed = 0
    }

    /// Writes `frames48k` concealment samples into the front of `pcm48k` (which holds at least that many).
    func conceal(frames48k: Int, into pcm48k: UnsafeMutableBufferPointer<Int16>) {
        for i in 0..<frames48k {
            let position = concealed + i
            let remaining = max(Self.fadeLength - position, 0)
            let phase = position % (2 * Self.historyLength)
            let index = phase < Self.historyLength ? Self.historyLength - 1 - phase : phase - Self.historyLength
            let sample = Int(history[index])
            pcm48k[i] = Int16(truncatingIfNeeded: sample * remaining / Self.fadeLength)
        }
        concealed += frames48k
    }
}
