import Synchronization

/// The voice processing of one physical device, run by its ``SharedAudioDevice`` hub: the mix
/// the device plays is the echo reference (``analyzeRender(_:)``, on the render thread), and the
/// microphone signal is processed once before it fans out to every call (``processCapture(_:)``,
/// on the capture thread).
///
/// The processor works on 10 ms frames. A device period that is a whole number of frames is
/// processed in place; any other period goes through a frame-sized FIFO, which delays the
/// captured audio by one frame. The render-to-capture delay given to the echo canceller is the
/// device's reported ``AudioDevice/latency`` (playback plus capture) plus that FIFO; the
/// canceller refines it by itself (delay-agnostic mode).
///
/// Options may change at any time from any thread (``setOptions(_:)``); the capture thread
/// applies them at its next frame. The processor is created on the first request for any stage,
/// on the requesting thread, and lives as long as the hub. When the device's formats rule
/// processing out (``fallback``), requests are recorded but nothing runs; a device that cannot
/// play has no echo reference, so echo cancellation does not run on it (the other stages do).
///
/// Threading: thread-safe. The audio threads never wait: options and statistics are atomics,
/// and the processor is published once through an `AtomicLazyReference`.
/// `@unchecked Sendable`: the framing buffers are each touched by one device thread only
/// (capture or render), and the processor by the capture thread (stages, capture) and the render
/// thread (render), which ``WebRTCVoiceProcessor`` allows.
package final class DeviceAudioProcessing: @unchecked Sendable {
    /// Why nothing is processed for this device even when asked (its format), or nil when it can be.
    private let formatFallback: AudioProcessingFallback?
    /// Whether the device plays: without a playback side there is no echo reference, so echo
    /// cancellation cannot run (the other stages can).
    private let hasPlaybackSide: Bool
    private let device: any AudioDevice
    private let processor = AtomicLazyReference<Box>()
    private let requested: Atomic<UInt8>
    /// Stages the capture thread has applied (its own copy is `applied`).
    private let active = Atomic<UInt8>(0)
    private var applied: UInt8 = 0
    /// Echo metrics in hundredths of a dB; `unknownMetric` until measured.
    private let echoReturnLoss = Atomic<Int32>(unknownMetric)
    private let echoReturnLossEnhancement = Atomic<Int32>(unknownMetric)
    /// The render-to-capture delay the canceller found, ms (−1 unknown), and the one the device reported.
    private let echoDelay = Atomic<Int32>(-1)
    private let reportedDelay = Atomic<Int32>(-1)
    private static let unknownMetric = Int32.min
    private let frameSamples: Int
    private let captureFramer: CaptureFramer?
    private let renderFrame: UnsafeMutableBufferPointer<Int16>
    private var renderFill = 0
    private var capturedFrames = 0
    /// Aligned periods are processed here (up to four periods per delivery).
    private let scratch: UnsafeMutableBufferPointer<Int16>

    private final class Box: Sendable {
        nonisolated(unsafe) let processor: any VoiceProcessor
        init(_ processor: any VoiceProcessor) { self.processor = processor }
    }

    /// Processing for `device`, with its default options requested.
    package init(device: any AudioDevice) {
        self.device = device
        self.requested = Atomic(device.defaultAudioProcessing.bits)
        let capture = device.captureFormat
        let render = device.renderFormat
        self.hasPlaybackSide = render != nil
        if let capture, !Self.supports(capture: capture, render: render) {
            formatFallback = .unsupportedFormat(capture: capture, render: render)
        } else {
            formatFallback = nil
        }
        let rate = capture?.sampleRate ?? 48_000
        let frame = max(1, rate / 100) * (capture?.channels ?? 1)
        self.frameSamples = frame
        self.renderFrame = .allocate(capacity: max(1, rate / 100) * (render?.channels ?? 1))
        renderFrame.initialize(repeating: 0)
        self.scratch = .allocate(capacity: max(frame, capture?.samplesPerBuffer ?? 0) * 4)
        scratch.initialize(repeating: 0)
        if let capture, capture.samplesPerBuffer % frame != 0 {
            captureFramer = CaptureFramer(frameSamples: frame, maximumDelivery: 4 * capture.samplesPerBuffer)
        } else {
            captureFramer = nil
        }
        if device.defaultAudioProcessing.isEnabled { _ = makeProcessorIfPossible() }
    }

    deinit {
        renderFrame.deallocate()
        scratch.deallocate()
    }

    /// Whether the processor takes these formats: one of its rates, the same both ways, one or two channels.
    package static func supports(capture: AudioFormat, render: AudioFormat?) -> Bool {
        guard WebRTCVoiceProcessor.sampleRates.contains(capture.sampleRate), (1...2).contains(capture.channels) else { return false }
        guard let render else { return true }
        return capture.sampleRate == render.sampleRate && (1...2).contains(render.channels)
    }

    /// Why `options` cannot run as asked on this device: its format rules processing out, or it
    /// has no playback side and echo cancellation is asked for (the other stages then run).
    package func fallback(for options: AudioProcessingOptions) -> AudioProcessingFallback? {
        guard options.isEnabled else { return nil }
        if let formatFallback { return formatFallback }
        if options.echoCancellation, !hasPlaybackSide { return .noPlaybackSide }
        return nil
    }

    /// Why the requested options do not run as asked, if they do not.
    package var fallback: AudioProcessingFallback? { fallback(for: options) }

    /// What was last asked for (it runs only when ``fallback`` is nil).
    package var options: AudioProcessingOptions { AudioProcessingOptions(bits: requested.load(ordering: .relaxed)) }

    /// Asks for `options`; they take effect at the next captured frame. Returns why they cannot
    /// run when they cannot (the caller logs it), nil otherwise.
    @discardableResult
    package func setOptions(_ options: AudioProcessingOptions) -> AudioProcessingFallback? {
        requested.store(options.bits, ordering: .releasing)
        guard options.isEnabled else { return nil }
        return makeProcessorIfPossible() ?? fallback(for: options)
    }

    private func makeProcessorIfPossible() -> AudioProcessingFallback? {
        if let formatFallback { return formatFallback }
        if processor.load() != nil { return nil }
        guard let capture = device.captureFormat,
            let made = WebRTCVoiceProcessor(
                sampleRate: capture.sampleRate, captureChannels: capture.channels,
                renderChannels: device.renderFormat?.channels ?? capture.channels)
        else { return .processorUnavailable }
        _ = processor.storeIfNil(Box(made))
        return nil
    }

    /// The stages running now, the echo metrics, and why processing fell back.
    package var status: AudioProcessingStatus {
        let wanted = options
        let bits = active.load(ordering: .relaxed)
        let erl = echoReturnLoss.load(ordering: .relaxed)
        let erle = echoReturnLossEnhancement.load(ordering: .relaxed)
        let aec = bits & 1 != 0
        return AudioProcessingStatus(
            requested: wanted, active: AudioProcessingOptions(bits: bits),
            echoReturnLoss: aec && erl != Self.unknownMetric ? Double(erl) / 100 : nil,
            echoReturnLossEnhancement: aec && erle != Self.unknownMetric ? Double(erle) / 100 : nil,
            fallback: fallback(for: wanted),
            echoDelayMilliseconds: aec ? Self.known(echoDelay) : nil, reportedDelayMilliseconds: aec ? Self.known(reportedDelay) : nil)
    }

    private static func known(_ value: borrowing Atomic<Int32>) -> Int? {
        let v = value.load(ordering: .relaxed)
        return v >= 0 ? Int(v) : nil
    }

    // MARK: - Render thread

    /// Takes what the device is about to play as the echo reference.
    package func analyzeRender(_ samples: UnsafeBufferPointer<Int16>) {
        guard requested.load(ordering: .relaxed) & 1 != 0, let box = processor.load(), let frame = renderFrame.baseAddress,
            let source = samples.baseAddress
        else {
            renderFill = 0
            return
        }
        var offset = 0
        while offset < samples.count {
            let n = min(renderFrame.count - renderFill, samples.count - offset)
            (frame + renderFill).update(from: source + offset, count: n)
            renderFill += n
            offset += n
            if renderFill == renderFrame.count {
                box.processor.analyzeRender(frame)
                renderFill = 0
            }
        }
    }

    // MARK: - Capture thread

    /// Processes captured audio with the requested stages. Returns the buffer to deliver: the
    /// input itself when nothing runs, else one of this object's buffers (valid until the next call).
    package func processCapture(_ samples: UnsafeBufferPointer<Int16>) -> UnsafeBufferPointer<Int16> {
        guard let box = processor.load() else { return samples }
        // No echo reference without a playback side: the other stages run.
        let wanted = requested.load(ordering: .acquiring) & (hasPlaybackSide ? 0xF : ~1)
        if wanted != applied {
            if box.processor.setStages(AudioProcessingOptions(bits: wanted)) {
                applied = wanted
            } else {
                applied = 0
                _ = box.processor.setStages(.none)
            }
            active.store(applied, ordering: .relaxed)
        }
        guard applied != 0 else { return samples }
        let delay = latencyMilliseconds()
        let result: UnsafeBufferPointer<Int16>
        if let captureFramer {
            result = captureFramer.process(samples) { box.processor.processCapture($0, delayMilliseconds: delay + 10) }
        } else {
            result = processInPlace(samples, box.processor, delay: delay)
        }
        capturedFrames += 1
        if applied & 1 != 0, capturedFrames % 50 == 0 {
            if let metrics = box.processor.echoMetrics {
                echoReturnLoss.store(Int32(clamping: Int((metrics.echoReturnLoss * 100).rounded())), ordering: .relaxed)
                echoReturnLossEnhancement.store(Int32(clamping: Int((metrics.echoReturnLossEnhancement * 100).rounded())), ordering: .relaxed)
            }
            echoDelay.store(Int32(clamping: box.processor.echoDelayMilliseconds ?? -1), ordering: .relaxed)
            reportedDelay.store(Int32(clamping: delay), ordering: .relaxed)
        }
        return result
    }

    private func latencyMilliseconds() -> Int {
        guard let latency = device.latency else { return 0 }
        return Int((latency.capture + latency.playback) / .milliseconds(1))
    }

    /// Aligned periods: copied into `scratch` and processed frame by frame; a delivery too large
    /// for it passes unprocessed.
    private func processInPlace(_ samples: UnsafeBufferPointer<Int16>, _ processor: any VoiceProcessor, delay: Int) -> UnsafeBufferPointer<Int16> {
        guard let base = scratch.baseAddress, let source = samples.baseAddress, samples.count <= scratch.count else { return samples }
        base.update(from: source, count: samples.count)
        var offset = 0
        while offset + frameSamples <= samples.count {
            processor.processCapture(base + offset, delayMilliseconds: delay)
            offset += frameSamples
        }
        return UnsafeBufferPointer(start: base, count: samples.count)
    }
}

/// Processing state for statistics.
package struct AudioProcessingStatus: Hashable, Sendable {
    /// What was asked for.
    package var requested: AudioProcessingOptions
    /// What runs now.
    package var active: AudioProcessingOptions
    /// Far-end level over echo level, dB, while the echo canceller runs and has measured.
    package var echoReturnLoss: Double?
    /// Echo level over what is left after cancellation, dB.
    package var echoReturnLossEnhancement: Double?
    /// Why nothing runs although something was asked for.
    package var fallback: AudioProcessingFallback?
    /// The render-to-capture delay the echo canceller found, ms.
    package var echoDelayMilliseconds: Int?
    /// The delay the device reported (playback plus capture, plus framing), ms.
    package var reportedDelayMilliseconds: Int?

    /// Nothing asked for, nothing running.
    package static let none = AudioProcessingStatus(requested: .none, active: .none)

    package init(
        requested: AudioProcessingOptions, active: AudioProcessingOptions, echoReturnLoss: Double? = nil,
        echoReturnLossEnhancement: Double? = nil, fallback: AudioProcessingFallback? = nil, echoDelayMilliseconds: Int? = nil,
        reportedDelayMilliseconds: Int? = nil
    ) {
        self.echoDelayMilliseconds = echoDelayMilliseconds
        self.reportedDelayMilliseconds = reportedDelayMilliseconds
        self.requested = requested
        self.active = active
        self.echoReturnLoss = echoReturnLoss
        self.echoReturnLossEnhancement = echoReturnLossEnhancement
        self.fallback = fallback
    }
}
