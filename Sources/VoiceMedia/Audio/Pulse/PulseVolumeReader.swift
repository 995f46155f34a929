import CPulse
import VoiceSupport

/// Reads a sink's volume from the sound server, for ``PulseAudioDevice/outputVolume``: the
/// average of its channels as a fraction of the server's normal volume (100 %), 0 when muted.
/// Its connection is opened on the first read and again after the server went away.
///
/// Threading: one caller at a time (the device holds it behind a lock); each read is a round
/// trip to the server, so it runs off any loop or audio thread.
final class PulseVolumeReader {
    private let server: String?
    private var connection: PulseConnection?

    init(server: String?) { self.server = server }

    /// The volume of `sink` (nil: the default sink, which a stream on the default plays to),
    /// or nil when the server or the sink cannot be reached.
    func read(sink: String?) -> Double? {
        if connection?.isConnected != true {
            connection = try? PulseConnection(applicationName: "VoiceSDK volume", server: server, timeout: .milliseconds(500))
        }
        guard let connection else { return nil }
        let answer = VolumeAnswer()
        let me = Unmanaged.passUnretained(answer).toOpaque()
        let operation = pa_context_get_sink_info_by_name(connection.context, sink ?? "@DEFAULT_SINK@", { _, info, end, me in
            guard let me else { return }
            let answer = Unmanaged<VolumeAnswer>.fromOpaque(me).takeUnretainedValue()
            if end == 0, let info = info?.pointee {
                var volume = info.volume
                answer.volume = info.mute != 0 ? 0 : Double(pa_cvolume_avg(&volume)) / 65_536
            }
            if end != 0 { answer.done = true }
        }, me)
        guard let operation else { return nil }
        try? connection.wait(until: "read the volume", timeout: .milliseconds(500)) { () throws(AudioDeviceError) -> Bool in
            answer.done || !connection.isConnected
        }
        // Unanswered: its callback must never run with `answer` gone.
        if !answer.done { pa_operation_cancel(operation) }
        pa_operation_unref(operation)
        if !connection.isConnected { self.connection = nil }
        return answer.volume
    }

    private final class VolumeAnswer {
        var volume: Double?
        var done = false
    }
}
