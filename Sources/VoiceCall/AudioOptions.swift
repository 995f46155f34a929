import ArgumentParser
import VoiceMedia

/// Where a command's audio comes from and goes to.
struct AudioOptions: ParsableArguments {
    @Option(help: "ALSA PCM to capture from and play to (e.g. default, hw:0).") var device: String?
    @Option(help: "A WAV file to send (looped).") var play: String?
    @Option(help: "A WAV file to record what arrives into.") var record: String?

    func makeDevice() throws -> (any AudioDevice)? {
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
