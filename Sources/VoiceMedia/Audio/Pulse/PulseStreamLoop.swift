import CPulse
import VoiceSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The body of one PulseAudio device thread: turns the stream's own main loop and moves whole
/// periods between the server and the context as the server asks for them, so the server's
/// clock sets the pace (a null sink's timer, a card's interrupts).
///
/// Capture gathers what the server hands over (any size; a hole in the recording counts as
/// silence) into periods; playback writes one period each time the server has room for one.
/// A stream that makes no progress for ``stallLimit`` is reported stalled; a lost connection
/// (the server went away) or a stream the server ended is reported as
/// ``AudioDeviceEvent/failed(_:)`` and ends the thread. Nothing here allocates or takes a lock
/// per period (libpulse copies what is written into its own blocks).
///
/// Threading: `@unchecked Sendable` because it is created by `start*` and then used only by
/// its device thread.
final class PulseStreamLoop: @unchecked Sendable {
    /// How long a stream may go without moving audio before it counts as stalled.
    static let stallLimit = MediaTime.seconds(2)

    private let stream: PulseStream
    private let context: any AudioDeviceContext
    private let enabled: AudioEnableFlag
    private let latency: DeviceLatencySlot
    private let buffer: UnsafeMutableBufferPointer<Int16>
    /// Bytes of the capture period gathered so far.
    private var filled = 0

    init(stream: PulseStream, format: AudioFormat, context: any AudioDeviceContext, enabled: AudioEnableFlag, latency: DeviceLatencySlot) {
        self.stream = stream
        self.context = context
        self.enabled = enabled
        self.latency = latency
        self.buffer = .allocate(capacity: format.samplesPerBuffer)
        buffer.initialize(repeating: 0)
    }

    deinit { buffer.deallocate() }

    /// Runs until the thread is asked to stop or the stream fails.
    func run(on thread: DeviceThread) {
        let clock = MonotonicMediaClock()
        var progress = clock.now()
        do throws(AudioDeviceError) {
            while !thread.shouldStop {
                guard stream.connection.iterate(timeoutMicroseconds: 20_000) else {
                    throw AudioDeviceError(kind: .ioFailed, code: -EIO, message: "PulseAudio: the stream's main loop failed")
                }
                if let failure = stream.failure { throw failure }
                let moved = try stream.isCapture ? readAvailable() : writeAvailable()
                let now = clock.now()
                if moved {
                    progress = now
                } else if now - progress > Self.stallLimit {
                    throw AudioDeviceError(
                        kind: .ioFailed, code: -EIO, message: "PulseAudio: the stream on \(stream.deviceLabel) stalled: no audio for 2 s")
                }
                if let microseconds = stream.latencyMicroseconds { latency.store(microseconds: microseconds) }
            }
        } catch {
            context.audioDevice(didReport: .failed(error))
        }
    }

    /// Reads everything the server has ready, delivering each whole period. True if any came.
    private func readAvailable() throws(AudioDeviceError) -> Bool {
        var moved = false
        while stream.available > 0 {
            var data: UnsafeRawPointer?
            var count = 0
            guard pa_stream_peek(stream.stream, &data, &count) >= 0 else {
                throw stream.connection.failure(.ioFailed, "read from \(stream.deviceLabel)")
            }
            guard count > 0 else { break }
            gather(data, count: count)
            pa_stream_drop(stream.stream)
            moved = true
        }
        return moved
    }

    /// Copies `count` bytes (nil: a hole, silence) into the period, delivering it each time it fills.
    private func gather(_ data: UnsafeRawPointer?, count: Int) {
        let period = UnsafeMutableRawBufferPointer(buffer)
        guard let base = period.baseAddress else { return }
        var offset = 0
        while offset < count {
            let take = min(count - offset, period.count - filled)
            if let data {
                (base + filled).copyMemory(from: data + offset, byteCount: take)
            } else {
                (base + filled).initializeMemory(as: UInt8.self, repeating: 0, count: take)
            }
            filled += take
            offset += take
            if filled == period.count {
                if !enabled.isEnabled { buffer.update(repeating: 0) }
                context.deliverCapturedAudio(UnsafeBufferPointer(buffer))
                filled = 0
            }
        }
    }

    /// Writes one period for each the server has room for. True if any went.
    private func writeAvailable() throws(AudioDeviceError) -> Bool {
        var moved = false
        while stream.available >= stream.periodBytes {
            context.readRenderAudio(into: buffer)
            if !enabled.isEnabled { buffer.update(repeating: 0) }
            guard let base = buffer.baseAddress,
                pa_stream_write(stream.stream, base, stream.periodBytes, nil, 0, PA_SEEK_RELATIVE) >= 0
            else { throw stream.connection.failure(.ioFailed, "write to \(stream.deviceLabel)") }
            moved = true
        }
        return moved
    }
}
