import CPulse
import VoiceSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One direction's PulseAudio stream on a connection of its own: S16LE at the call's rate and
/// channels, tagged `media.role=phone` so the desktop treats it as a call (ducking other
/// audio, a headset's profile, the "phone" volume), with its buffering asked for in periods.
///
/// Opened with no device name it plays or records on the server's default and is moved by the
/// server when the user picks another default (PulseAudio 14 and later, PipeWire) or when its
/// device goes away, without a restart.
///
/// Used by one thread at a time, as its connection (``PulseConnection``).
final class PulseStream {
    let connection: PulseConnection
    let stream: OpaquePointer
    let isCapture: Bool
    /// Bytes in one period.
    let periodBytes: Int
    /// The device asked for, or nil for the default (what messages name).
    let deviceName: String?

    /// Connects a stream for `format` to `device` (nil: the default) and waits until it runs.
    ///
    /// - Throws: ``AudioDeviceError/Kind/unsupportedFormat`` for a format libpulse refuses,
    ///   ``AudioDeviceError/Kind/openFailed`` for a missing device (`ENOENT`, not transient) or
    ///   a server that refused or did not answer (transient).
    init(
        connection: PulseConnection, capture: Bool, device: String?, format: AudioFormat, bufferPeriods: Int,
        timeout: Duration = .seconds(2)
    ) throws(AudioDeviceError) {
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: UInt32(clamping: format.sampleRate), channels: UInt8(clamping: format.channels))
        guard format.sampleRate > 0, (1...2).contains(format.channels), pa_sample_spec_valid(&spec) != 0 else {
            throw AudioDeviceError(kind: .unsupportedFormat, code: -EINVAL, message: "PulseAudio refuses \(format)")
        }
        let properties = pa_proplist_new()
        pa_proplist_sets(properties, "media.role", "phone")
        pa_proplist_sets(properties, "media.name", capture ? "Call microphone" : "Call audio")
        // A desktop's filter-heuristics would route a phone stream through the server's echo
        // canceller: the call's own voice processing does that (and needs the real device's delay).
        pa_proplist_sets(properties, "filter.suppress", "echo-cancel")
        let stream = pa_stream_new_with_proplist(connection.context, capture ? "Call microphone" : "Call audio", &spec, nil, properties)
        pa_proplist_free(properties)
        guard let stream else { throw connection.failure(.openFailed, "create a stream") }
        self.connection = connection
        self.stream = stream
        self.isCapture = capture
        self.periodBytes = format.samplesPerBuffer * MemoryLayout<Int16>.size
        self.deviceName = device
        let period = UInt32(periodBytes)
        let unset = UInt32.max
        // Playback: the server keeps `bufferPeriods` of our audio queued (its whole latency,
        // with ADJUST_LATENCY) and asks for one period at a time. Capture: it hands over one
        // period at a time.
        var attributes = capture
            ? pa_buffer_attr(maxlength: unset, tlength: unset, prebuf: unset, minreq: unset, fragsize: period)
            : pa_buffer_attr(maxlength: unset, tlength: period * UInt32(max(2, bufferPeriods)), prebuf: unset, minreq: period, fragsize: unset)
        let flags = pa_stream_flags_t(
            rawValue: PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue | PA_STREAM_INTERPOLATE_TIMING.rawValue)
        let target = device.map { "\"\($0)\"" } ?? "the default \(capture ? "source" : "sink")"
        let connected = capture
            ? pa_stream_connect_record(stream, device, &attributes, flags)
            : pa_stream_connect_playback(stream, device, &attributes, flags, nil, nil)
        guard connected >= 0 else { throw Self.openFailure(connection, target) }
        try connection.wait(until: "open \(target)", timeout: timeout) { [stream] () throws(AudioDeviceError) -> Bool in
            switch pa_stream_get_state(stream) {
            case PA_STREAM_READY: return true
            case PA_STREAM_FAILED, PA_STREAM_TERMINATED: throw Self.openFailure(connection, target)
            default: return false
            }
        }
    }

    /// Why the stream did not open: a format or buffering the server refuses, or `openFailed`.
    private static func openFailure(_ connection: PulseConnection, _ target: String) -> AudioDeviceError {
        let code = UInt32(bitPattern: pa_context_errno(connection.context))
        let refused = code == PA_ERR_INVALID.rawValue || code == PA_ERR_NOTSUPPORTED.rawValue
        return connection.failure(refused ? .unsupportedFormat : .openFailed, "open \(target)")
    }

    deinit {
        pa_stream_disconnect(stream)
        pa_stream_unref(stream)
    }

    /// Nil while the stream runs; otherwise why it stopped (the server went away, or killed
    /// the stream), as a transient or final error.
    var failure: AudioDeviceError? {
        guard connection.isConnected else { return connection.failure(.ioFailed, "the connection to \(connection.serverName) was lost") }
        switch pa_stream_get_state(stream) {
        case PA_STREAM_READY: return nil
        default:
            return AudioDeviceError(kind: .ioFailed, code: -ENODEV, message: "PulseAudio: the server ended the stream on \(deviceLabel)")
        }
    }

    /// The device the stream runs on now (the server may have moved it), or what was asked for.
    var deviceLabel: String {
        pa_stream_get_device_name(stream).map { String(cString: $0) } ?? deviceName ?? "the default device"
    }

    /// Bytes the server has ready to read (capture) or room for (playback).
    var available: Int {
        let size = isCapture ? pa_stream_readable_size(stream) : pa_stream_writable_size(stream)
        return max(0, size)  // (size_t)-1, an error, imports as -1
    }

    /// The stream's latency as the server reports it: audio recorded and not yet read, or
    /// written and not yet played. Nil before the first timing update.
    var latencyMicroseconds: Int64? {
        var usec: pa_usec_t = 0
        var negative: Int32 = 0
        guard pa_stream_get_latency(stream, &usec, &negative) >= 0 else { return nil }
        return negative != 0 ? 0 : Int64(clamping: usec)
    }
}
