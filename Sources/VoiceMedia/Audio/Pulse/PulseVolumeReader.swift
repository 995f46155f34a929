import CPulse
import VoiceSupport

/// Reads how loud the call plays, for ``PulseAudioDevice/outputVolume``: the volume of the sink
/// the call's playback stream is on now (the server may have moved it), times the stream's own
/// volume, each the average of its channels as a fraction of the server's normal volume
/// (100 %), 0 when either is muted. Without a running stream, the volume of the sink it would
/// open on. Its connection is opened on the first read and again after the server went away.
///
/// Threading: one caller at a time (the device holds it behind a lock); each read is one or
/// two round trips to the server, so it runs off any loop or audio thread.
final class PulseVolumeReader {
    private let server: String?
    private var connection: PulseConnection?

    init(server: String?) { self.server = server }

    /// The volume the playback stream at `stream` (its sink-input index) plays at, or, when
    /// there is none or the server does not know it, that of `sink` (nil: the default sink).
    /// Nil when the server or the sink cannot be reached.
    func read(stream: UInt32?, sink: String?) -> Double? {
        if connection?.isConnected != true {
            connection = try? PulseConnection(applicationName: "VoiceSDK volume", server: server, timeout: .milliseconds(500))
        }
        guard let connection else { return nil }
        defer { if !connection.isConnected { self.connection = nil } }
        if let stream {
            let input = ask(connection) { context, answer in
                pa_context_get_sink_input_info(context, stream, { _, info, end, me in
                    guard let me else { return }
                    let answer = Unmanaged<VolumeAnswer>.fromOpaque(me).takeUnretainedValue()
                    if end == 0, let info = info?.pointee {
                        var volume = info.volume
                        answer.volume = info.mute != 0 ? 0 : Double(pa_cvolume_avg(&volume)) / 65_536
                        answer.sink = info.sink
                    }
                    if end != 0 { answer.done = true }
                }, answer)
            }
            // A stream the server no longer has (it went away and came back): the sink's alone.
            if let streamVolume = input.volume, let sinkIndex = input.sink {
                let sink = ask(connection) { context, answer in
                    pa_context_get_sink_info_by_index(context, sinkIndex, Self.sinkVolume, answer)
                }
                return sink.volume.map { $0 * streamVolume }
            }
        }
        return ask(connection) { context, answer in
            pa_context_get_sink_info_by_name(context, sink ?? "@DEFAULT_SINK@", Self.sinkVolume, answer)
        }.volume
    }

    private static let sinkVolume: pa_sink_info_cb_t = { _, info, end, me in
        guard let me else { return }
        let answer = Unmanaged<VolumeAnswer>.fromOpaque(me).takeUnretainedValue()
        if end == 0, let info = info?.pointee {
            var volume = info.volume
            answer.volume = info.mute != 0 ? 0 : Double(pa_cvolume_avg(&volume)) / 65_536
        }
        if end != 0 { answer.done = true }
    }

    /// Sends one introspection request and waits up to half a second for its answer.
    private func ask(
        _ connection: PulseConnection, _ request: (OpaquePointer, UnsafeMutableRawPointer) -> OpaquePointer?
    ) -> VolumeAnswer {
        let answer = VolumeAnswer()
        guard let operation = request(connection.context, Unmanaged.passUnretained(answer).toOpaque()) else { return answer }
        try? connection.wait(until: "read the volume", timeout: .milliseconds(500)) { () throws(AudioDeviceError) -> Bool in
            answer.done || !connection.isConnected
        }
        // Unanswered: its callback must never run with `answer` gone.
        if !answer.done { pa_operation_cancel(operation) }
        pa_operation_unref(operation)
        return answer
    }

    private final class VolumeAnswer {
        var volume: Double?
        var sink: UInt32?
        var done = false
    }
}
