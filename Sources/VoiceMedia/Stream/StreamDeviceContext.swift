import VoiceRTP
/// The stream's side of an audio device: converts the device's format to 48 kHz mono and moves
/// samples through lock-free rings to and from the media thread.
///
/// Capture and render may run on two device threads; each direction has its own scratch
/// buffers and converter, allocated once in `configure`.
final class StreamDeviceContext: AudioDeviceContext, SharedEncodingSink, @unchecked Sendable {
    // Written once in `configure` before the device starts; afterwards each direction's state is
    // touched only by that direction's device thread.
    private let captureRing: AudioRingBuffer
    private let renderRing: AudioRingBuffer
    private let encodedRing: EncodedFrameRing
    private let control: StreamControl
    private var captureConverter: FormatConverter?
    private var renderConverter: FormatConverter?
    private var renderScratch = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 0)
    private var receivedAudio = false

    init(capture: AudioRingBuffer, render: AudioRingBuffer, encoded: EncodedFrameRing, control: StreamControl) {
        self.captureRing = capture
        self.renderRing = render
        self.encodedRing = encoded
        self.control = control
    }

    /// A fresh context on the same rings, for another device (the old one must have stopped).
    func forAnotherDevice() -> StreamDeviceContext {
        StreamDeviceContext(capture: captureRing, render: renderRing, encoded: encodedRing, control: control)
    }

    deinit { renderScratch.deallocate() }

    func configure(captureFormat: AudioFormat?, renderFormat: AudioFormat?) {
        if let f = captureFormat, f.sampleRate != 48_000 || f.channels != 1 {
            captureConverter = FormatConverter(
                from: f, to: AudioFormat(sampleRate: 48_000, channels: 1, framesPerBuffer: f.framesPerBuffer * 48_000 / f.sampleRate))
        }
        if let f = renderFormat {
            if f.sampleRate != 48_000 || f.channels != 1 {
                renderConverter = FormatConverter(
                    from: AudioFormat(sampleRate: 48_000, channels: 1, framesPerBuffer: f.framesPerBuffer * 48_000 / f.sampleRate), to: f)
            }
            renderScratch.deallocate()
            renderScratch = .allocate(capacity: (f.framesPerBuffer * 48_000 / f.sampleRate + 64) * 2)
        }
    }

    func deliverCapturedAudio(_ samples: UnsafeBufferPointer<Int16>) {
        control.captureDeliveries.add(1, ordering: .relaxed)
        let written: Int
        let offered: Int
        if let conv = captureConverter {
            let out = conv.convert(samples)
            offered = out.count
            written = captureRing.write(out)
        } else {
            offered = samples.count
            written = captureRing.write(samples)
        }
        if written < offered { control.captureOverflows.add(1, ordering: .relaxed) }
    }

    func sharedEncoding(ifNewerThan version: Int) -> (key: SharedEncodingKey?, version: Int)? {
        let current = control.sharedEncodingVersion.load(ordering: .acquiring)
        guard current != version, let key = control.sharedEncoding.withLockIfAvailable({ $0 }) else { return nil }
        return (key, current)
    }

    func deliverEncodedFrame(_ payload: UnsafeRawBufferPointer, samples: Int, peak: Int, level: UInt8) -> Bool {
        // Only a 48 kHz mono capture side has the stream's framing (a conference port's).
        guard captureConverter == nil else { return false }
        guard encodedRing.write(payload, samples: samples, peak: peak, level: level, pcmPosition: captureRing.writePosition) else { return false }
        control.captureDeliveries.add(1, ordering: .relaxed)
        return true
    }

    func readRenderAudio(into samples: UnsafeMutableBufferPointer<Int16>) {
        control.renderPulls.add(1, ordering: .relaxed)
        if let conv = renderConverter {
            let need = conv.inputFrames(forOutputSamples: samples.count)
            let dst = UnsafeMutableBufferPointer(rebasing: renderScratch[0..<min(need, renderScratch.count)])
            fillFromRing(dst)
            let n = conv.convert(UnsafeBufferPointer(dst), into: samples)
            if n < samples.count { UnsafeMutableBufferPointer(rebasing: samples[n...]).update(repeating: 0) }
        } else {
            fillFromRing(samples)
        }
    }

    private func fillFromRing(_ dst: UnsafeMutableBufferPointer<Int16>) {
        let got = renderRing.read(into: dst)
        if got > 0 { receivedAudio = true }
        if got < dst.count {
            UnsafeMutableBufferPointer(rebasing: dst[got...]).update(repeating: 0)
            if receivedAudio { control.renderUnderruns.add(1, ordering: .relaxed) }
        }
    }

    func audioDevice(didReport event: AudioDeviceEvent) {
        control.record(event)
        control.emit(.audioDevice(event))
    }
}
