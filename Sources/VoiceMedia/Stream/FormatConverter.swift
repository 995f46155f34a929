/// Converts interleaved Int16 audio between channel counts and sample rates, into buffers it
/// owns (allocated once). Rate conversion uses the speexdsp resampler.
final class FormatConverter {
    let from: AudioFormat
    let to: AudioFormat
    private let resampler: Resampler?
    private let mixed: UnsafeMutableBufferPointer<Int16>
    private let output: UnsafeMutableBufferPointer<Int16>
    private let resampled: UnsafeMutableBufferPointer<Int16>

    init(from: AudioFormat, to: AudioFormat) {
        self.from = from
        self.to = to
        let maxFrames = max(from.framesPerBuffer, to.framesPerBuffer) * 4 + 256
        mixed = .allocate(capacity: maxFrames * 2)
        let ratio = max(1, to.sampleRate / max(1, from.sampleRate) + 1)
        output = .allocate(capacity: maxFrames * 2 * ratio)
        resampled = .allocate(capacity: maxFrames * ratio)
        resampler =
            from.sampleRate == to.sampleRate ? nil : try? Resampler(inputRate: from.sampleRate, outputRate: to.sampleRate, channels: 1)
    }

    deinit {
        mixed.deallocate()
        output.deallocate()
        resampled.deallocate()
    }

    /// Input samples (interleaved, `from` format) needed to produce about `outputSamples` in `to` format.
    func inputFrames(forOutputSamples outputSamples: Int) -> Int {
        let frames = outputSamples / to.channels
        return (frames * from.sampleRate + to.sampleRate - 1) / to.sampleRate * from.channels
    }

    /// Converts `input`; the result is valid until the next call.
    func convert(_ input: UnsafeBufferPointer<Int16>) -> UnsafeBufferPointer<Int16> {
        let n = convert(input, into: output)
        return UnsafeBufferPointer(rebasing: output[0..<n])
    }

    /// Converts `input` into `out`, padding with silence if fewer samples come out; returns samples written.
    @discardableResult
    func convert(_ input: UnsafeBufferPointer<Int16>, into out: UnsafeMutableBufferPointer<Int16>) -> Int {
        // 1. channels -> mono
        let frames = min(input.count / max(1, from.channels), mixed.count)
        if from.channels == 1 {
            _ = UnsafeMutableBufferPointer(rebasing: mixed[0..<frames]).update(
                fromContentsOf: UnsafeBufferPointer(rebasing: input[0..<frames]))
        } else {
            for i in 0..<frames {
                var sum = 0
                for c in 0..<from.channels { sum += Int(input[i * from.channels + c]) }
                mixed[i] = Int16(clamping: sum / from.channels)
            }
        }
        // 2. rate
        var mono = UnsafeBufferPointer(rebasing: mixed[0..<frames])
        var produced = frames
        if let r = resampler {
            produced = (try? r.process(mono, into: resampled).produced) ?? 0
            mono = UnsafeBufferPointer(rebasing: resampled[0..<produced])
        }
        // 3. mono -> channels
        let outFrames = min(produced, out.count / max(1, to.channels))
        for i in 0..<outFrames {
            for c in 0..<to.channels { out[i * to.channels + c] = mono[i] }
        }
        return outFrames * to.channels
    }
}
