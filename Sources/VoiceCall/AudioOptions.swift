import ArgumentParser
import VoiceMedia

/// Where a command's audio comes from and goes to.
struct AudioOptions: ParsableArguments {
    @Option(help: "ALSA PCM to capture from and play to (e.g. default, hw:0).") var device: String?
    @Flag(help: "Use the desktop's sound server directly (libpulse: PulseAudio or PipeWire), on its default devices, followed as the user changes them.")
    var pulse = false
    @Option(help: "With --pulse: the sink to play to (`voicecall devices` lists them).") var sink: String?
    @Option(help: "With --pulse: the source to capture from.") var source: String?
    @Option(help: "A WAV file to send (looped).") var play: String?
    @Option(help: "A WAV file to record what arrives into.") var record: String?
    @Option(help: "Record both directions of the call to FILE (left: sent, right: received): WAV, or Ogg Opus for .opus/.ogg; works with any device.")
    var recordBoth: String?
    @Flag(help: "Process --play's audio as a microphone's (echo cancellation, noise suppression, gain control, high-pass filter); on by default with --device.")
    var process = false
    @Flag(help: "No echo cancellation.") var noAec = false
    @Flag(help: "No noise suppression.") var noNs = false
    @Flag(help: "No automatic gain control.") var noAgc = false
    @Flag(help: "No high-pass filter.") var noHpf = false

    /// The processing the flags ask for on `device`, nil when they leave its default alone.
    func audioProcessing(for device: (any AudioDevice)?) -> AudioProcessingOptions? {
        guard process || noAec || noNs || noAgc || noHpf else { return nil }
        var options = process ? AudioProcessingOptions.all : (device?.defaultAudioProcessing ?? .none)
        if noAec { options.echoCancellation = false }
        if noNs { options.noiseSuppression = false }
        if noAgc { options.autoGainControl = false }
        if noHpf { options.highPassFilter = false }
        return options
    }

    func makeDevice() throws -> (any AudioDevice)? {
        guard pulse || (sink == nil && source == nil) else { throw ValidationError("--sink and --source go with --pulse") }
        if pulse {
            guard device == nil, play == nil, record == nil else {
                throw ValidationError("--pulse plays and records on the sound server: use it without --device, --play and --record")
            }
            return try PulseAudioDevice(capture: source, playback: sink)
        }
        if let device {
            guard play == nil, record == nil else {
                throw ValidationError("--device plays and records on the sound card: use it without --play and --record")
            }
            return try ALSAAudioDevice(name: device)
        }
        if play != nil || record != nil {
            return try FileAudioDevice(
                input: play.map { .wav(path: $0) }, outputPath: record, endOfInput: .loop)
        }
        return nil
    }
}
