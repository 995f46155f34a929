import VoiceSupport
/// The body of one ALSA device thread: moves periods between the PCM and the context, paced
/// on absolute deadlines, and closes the PCM when it ends.
///
/// Threading: `@unchecked Sendable` because it is created by `start*` and then used only by
/// its device thread.
final class ALSAStreamLoop: @unchecked Sendable {
    private let pcm: ALSAPCM
    private let context: any AudioDeviceContext
    private let enabled: AudioEnableFlag
    private let frames: Int
    private let channels: Int
    private let period: MediaTime
    private let prefillPeriods: Int
    private let buffer: UnsafeMutableBufferPointer<Int16>
    /// Consecutive wait timeouts (about 2 s) after which the device counts as stalled.
    private let stallLimit: Int
    /// Where the PCM's delay is published after each period, in microseconds.
    private let latency: DeviceLatencySlot
    private let sampleRate: Int

    init(
        pcm: ALSAPCM, format: AudioFormat, context: any AudioDeviceContext, enabled: AudioEnableFlag, prefillPeriods: Int,
        latency: DeviceLatencySlot
    ) {
        self.pcm = pcm
        self.context = context
        self.enabled = enabled
        self.frames = format.framesPerBuffer
        self.channels = format.channels
        self.period = format.bufferDuration
        self.prefillPeriods = max(0, prefillPeriods)
        self.buffer = .allocate(capacity: format.samplesPerBuffer)
        buffer.initialize(repeating: 0)
        self.stallLimit = max(1, 2000 / Int(pcm.waitTimeoutMilliseconds))
        self.latency = latency
        self.sampleRate = format.sampleRate
    }

    deinit { buffer.deallocate() }

    /// Runs until the thread is asked to stop or the PCM fails; always closes the PCM.
    func run(on thread: DeviceThread) {
        defer { pcm.close() }
        let clock = MonotonicMediaClock()
        do {
            if !pcm.isCapture {
                buffer.update(repeating: 0)
                for _ in 0..<prefillPeriods where !thread.shouldStop {
                    try transferPeriod(thread)
                }
            }
            // Sleeps only when the device returned early (it does not block); a device slower than
            // our clock is followed instead, so a real card sets the pace.
            var deadline = PeriodicDeadline(start: clock.now(), period: period, resyncAfterPeriods: 2)
            while !thread.shouldStop {
                if pcm.isCapture {
                    // ALSA `null` reports frames read without writing them: deliver silence, not the previous period.
                    buffer.update(repeating: 0)
                } else {
                    context.readRenderAudio(into: buffer)
                    if !enabled.isEnabled { buffer.update(repeating: 0) }
                }
                guard try transferPeriod(thread) else { return }
                if let frames = pcm.delayFrames() {
                    latency.store(frames: frames, sampleRate: sampleRate)
                }
                if pcm.isCapture {
                    if !enabled.isEnabled { buffer.update(repeating: 0) }
                    context.deliverCapturedAudio(UnsafeBufferPointer(buffer))
                }
                PeriodicDeadline.sleep(until: deadline.advance(now: clock.now()))
            }
        } catch {
            context.audioDevice(didReport: .failed(error))
        }
    }

    /// Moves one whole period through the PCM. Returns false if stopped midway.
    @discardableResult
    private func transferPeriod(_ thread: DeviceThread) throws(AudioDeviceError) -> Bool {
        guard let base = buffer.baseAddress else { return false }
        var done = 0
        var timeouts = 0
        while done < frames {
            if thread.shouldStop { return false }
            switch try pcm.transfer(base + done * channels, frames: frames - done) {
            case let .frames(n):
                done += n
                timeouts = 0
            case .timedOut:
                timeouts += 1
                if timeouts >= stallLimit {
                    throw AudioDeviceError(kind: .ioFailed, message: "PCM \"\(pcm.name)\" stalled: no data for \(timeouts) waits")
                }
            case .xrunRecovered:
                context.audioDevice(didReport: .xrunRecovered(capture: pcm.isCapture))
            case .suspendRecovered:
                context.audioDevice(didReport: .suspendRecovered(capture: pcm.isCapture))
            case .retry:
                continue
            }
        }
        return true
    }
}
