/// Cuts captured audio whose period is not a whole number of processing frames into frames,
/// and hands back as many processed samples as came in, one frame late.
///
/// The output queue starts with one frame of silence, so every delivery of `n` samples finds at
/// least `n` processed ones waiting: the delay is exactly one frame. Deliveries larger than
/// `maximumDelivery` pass unprocessed (a device never delivers more than a few periods).
///
/// Threading: not thread-safe; used by the capture thread only. Buffers are allocated up front.
final class CaptureFramer {
    private let frameSamples: Int
    private let frame: UnsafeMutableBufferPointer<Int16>
    private var frameFill = 0
    private let queue: UnsafeMutableBufferPointer<Int16>
    private var queueStart = 0
    private var queueCount: Int
    private let output: UnsafeMutableBufferPointer<Int16>

    init(frameSamples: Int, maximumDelivery: Int) {
        self.frameSamples = frameSamples
        frame = .allocate(capacity: frameSamples)
        frame.initialize(repeating: 0)
        queue = .allocate(capacity: frameSamples * 2 + maximumDelivery)
        queue.initialize(repeating: 0)
        queueCount = frameSamples
        output = .allocate(capacity: maximumDelivery)
        output.initialize(repeating: 0)
    }

    deinit {
        frame.deallocate()
        queue.deallocate()
        output.deallocate()
    }

    /// Feeds `samples` in, runs `process` on every whole frame, and returns the same number of
    /// processed samples (valid until the next call).
    func process(_ samples: UnsafeBufferPointer<Int16>, _ process: (UnsafeMutablePointer<Int16>) -> Void) -> UnsafeBufferPointer<Int16> {
        guard samples.count <= output.count, let frameBase = frame.baseAddress else { return samples }
        for sample in samples {
            frame[frameFill] = sample
            frameFill += 1
            if frameFill == frameSamples {
                process(frameBase)
                for i in 0..<frameSamples { push(frame[i]) }
                frameFill = 0
            }
        }
        for i in 0..<samples.count { output[i] = pop() }
        return UnsafeBufferPointer(rebasing: output[0..<samples.count])
    }

    private func push(_ sample: Int16) {
        guard queueCount < queue.count else { return }
        queue[(queueStart + queueCount) % queue.count] = sample
        queueCount += 1
    }

    private func pop() -> Int16 {
        guard queueCount > 0 else { return 0 }
        let sample = queue[queueStart]
        queueStart = (queueStart + 1) % queue.count
        queueCount -= 1
        return sample
    }
}
