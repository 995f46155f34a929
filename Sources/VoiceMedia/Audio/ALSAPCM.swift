import CALSA
import VoiceSupport
#if canImport(Glibc)
    import Glibc
#endif

/// One open ALSA PCM configured for interleaved signed 16-bit little-endian audio, non-blocking.
///
/// Threading: not thread-safe; owned by one thread at a time (opened by `start*`, then handed
/// to the device thread, which closes it when it ends).
final class ALSAPCM {
    /// Why the last transfer step returned without moving frames.
    enum Transfer {
        /// Frames moved.
        case frames(Int)
        /// Nothing ready before the wait timed out.
        case timedOut
        /// An xrun happened and was recovered.
        case xrunRecovered
        /// The device was suspended and has been resumed.
        case suspendRecovered
        /// An interruption was recovered silently.
        case retry
    }

    private var handle: OpaquePointer?
    let name: String
    let isCapture: Bool
    let channels: Int
    /// Milliseconds `snd_pcm_wait` may block before the loop rechecks its stop flag.
    let waitTimeoutMilliseconds: Int32
    /// Period size the device actually granted, in frames.
    private(set) var periodFrames: Int = 0
    /// Errors to return in place of libasound's (tests).
    private let faults: (any ALSAFaultSource)?

    /// Opens and configures `name`.
    ///
    /// - Throws: ``AudioDeviceError/Kind/openFailed`` if the PCM cannot be opened,
    ///   ``AudioDeviceError/Kind/unsupportedFormat`` if it refuses the format, rate or period.
    init(name: String, capture: Bool, format: AudioFormat, bufferPeriods: Int, faults: (any ALSAFaultSource)? = nil) throws(AudioDeviceError) {
        self.name = name
        self.faults = faults
        self.isCapture = capture
        self.channels = format.channels
        let periodMs = max(1, format.framesPerBuffer * 1000 / max(1, format.sampleRate))
        self.waitTimeoutMilliseconds = Int32(max(20, 4 * periodMs))
        var pcm: OpaquePointer?
        try AudioDeviceError.checkALSA(
            faults?.nextOpenFault() ?? snd_pcm_open(&pcm, name, capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK),
            kind: .openFailed, "open PCM \"\(name)\" for \(capture ? "capture" : "playback")")
        guard let pcm else { throw AudioDeviceError(kind: .openFailed, message: "open PCM \"\(name)\" returned no handle") }
        handle = pcm
        do {
            try configure(pcm, format: format, bufferPeriods: bufferPeriods)
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    private func configure(_ pcm: OpaquePointer, format: AudioFormat, bufferPeriods: Int) throws(AudioDeviceError) {
        let what = "PCM \"\(name)\""
        var hwOut: OpaquePointer?
        try AudioDeviceError.checkALSA(snd_pcm_hw_params_malloc(&hwOut), kind: .ioFailed, "allocate hw params")
        guard let hw = hwOut else { throw AudioDeviceError(kind: .ioFailed, message: "allocate hw params") }
        defer { snd_pcm_hw_params_free(hw) }
        try AudioDeviceError.checkALSA(snd_pcm_hw_params_any(pcm, hw), kind: .unsupportedFormat, "\(what): no configurations")
        try AudioDeviceError.checkALSA(
            snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED),
            kind: .unsupportedFormat, "\(what): interleaved access")
        try AudioDeviceError.checkALSA(
            snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE),
            kind: .unsupportedFormat, "\(what): S16_LE")
        try AudioDeviceError.checkALSA(
            snd_pcm_hw_params_set_channels(pcm, hw, UInt32(format.channels)),
            kind: .unsupportedFormat, "\(what): \(format.channels) channels")
        var rate = UInt32(format.sampleRate)
        var dir: Int32 = 0
        try AudioDeviceError.checkALSA(
            snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, &dir),
            kind: .unsupportedFormat, "\(what): rate \(format.sampleRate)")
        guard Int(rate) == format.sampleRate else {
            throw AudioDeviceError(
                kind: .unsupportedFormat, message: "\(what): rate \(format.sampleRate) Hz unavailable (nearest \(rate) Hz)")
        }
        var period = snd_pcm_uframes_t(format.framesPerBuffer)
        try AudioDeviceError.checkALSA(
            snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, &dir),
            kind: .unsupportedFormat, "\(what): period \(format.framesPerBuffer) frames")
        var bufferSize = snd_pcm_uframes_t(format.framesPerBuffer * max(2, bufferPeriods))
        try AudioDeviceError.checkALSA(
            snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &bufferSize),
            kind: .unsupportedFormat, "\(what): buffer \(bufferSize) frames")
        try AudioDeviceError.checkALSA(snd_pcm_hw_params(pcm, hw), kind: .unsupportedFormat, "\(what): apply hw params")
        periodFrames = Int(period)

        var swOut: OpaquePointer?
        try AudioDeviceError.checkALSA(snd_pcm_sw_params_malloc(&swOut), kind: .ioFailed, "allocate sw params")
        guard let sw = swOut else { throw AudioDeviceError(kind: .ioFailed, message: "allocate sw params") }
        defer { snd_pcm_sw_params_free(sw) }
        try AudioDeviceError.checkALSA(snd_pcm_sw_params_current(pcm, sw), kind: .ioFailed, "\(what): current sw params")
        try AudioDeviceError.checkALSA(snd_pcm_sw_params_set_avail_min(pcm, sw, period), kind: .unsupportedFormat, "\(what): avail min")
        // Capture starts on the first read; playback once one period is queued.
        try AudioDeviceError.checkALSA(
            snd_pcm_sw_params_set_start_threshold(pcm, sw, isCapture ? 1 : period),
            kind: .unsupportedFormat, "\(what): start threshold")
        try AudioDeviceError.checkALSA(snd_pcm_sw_params(pcm, sw), kind: .unsupportedFormat, "\(what): apply sw params")
        try AudioDeviceError.checkALSA(snd_pcm_prepare(pcm), kind: .ioFailed, "\(what): prepare")
    }

    /// Drops pending frames and closes the PCM. Idempotent.
    func close() {
        guard let pcm = handle else { return }
        handle = nil
        _ = snd_pcm_drop(pcm)
        _ = snd_pcm_close(pcm)
    }

    /// Waits up to the timeout for the PCM to be ready, then reads (capture) or writes (playback)
    /// up to `frames` frames at `samples`. Recovers xruns; throws ``AudioDeviceError/Kind/ioFailed`` otherwise.
    func transfer(_ samples: UnsafeMutablePointer<Int16>, frames: Int) throws(AudioDeviceError) -> Transfer {
        guard let pcm = handle else { throw AudioDeviceError(kind: .ioFailed, code: -EBADFD, message: "PCM \"\(name)\" is closed") }
        if let injected = faults?.nextTransferFault(capture: isCapture) { return try recover(pcm, Int(injected)) }
        let ready = snd_pcm_wait(pcm, waitTimeoutMilliseconds)
        if ready == 0 { return .timedOut }
        if ready < 0 { return try recover(pcm, Int(ready)) }
        let moved =
            isCapture
            ? snd_pcm_readi(pcm, samples, snd_pcm_uframes_t(frames))
            : snd_pcm_writei(pcm, samples, snd_pcm_uframes_t(frames))
        if moved >= 0 { return .frames(moved) }
        if moved == -Int(EAGAIN) { return .retry }
        return try recover(pcm, moved)
    }

    /// Frames between the application and the converter now (`snd_pcm_delay`): captured and not
    /// yet read, or written and not yet played. Nil when the PCM cannot say.
    func delayFrames() -> Int? {
        guard let pcm = handle else { return nil }
        var frames: snd_pcm_sframes_t = 0
        guard snd_pcm_delay(pcm, &frames) == 0, frames >= 0 else { return nil }
        return Int(frames)
    }

    private func recover(_ pcm: OpaquePointer, _ error: Int) throws(AudioDeviceError) -> Transfer {
        let code = Int32(truncatingIfNeeded: error)
        try AudioDeviceError.checkALSA(
            snd_pcm_recover(pcm, code, 1), kind: .ioFailed,
            "PCM \"\(name)\" \(isCapture ? "read" : "write")")
        // Capture restarts itself on the next read; playback restarts at the start threshold.
        switch code {
        case -EPIPE: return .xrunRecovered
        case -ESTRPIPE: return .suspendRecovered
        default: return .retry
        }
    }
}
