import ArgumentParser
import CVoiceSys

@main
struct VoiceCallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voicecall",
        abstract: "Places and receives encrypted SIP voice calls with VoiceCore.",
        subcommands: [Demo.self, PlaceCall.self, Listen.self, Conference.self, Preflight.self, Devices.self],
        defaultSubcommand: Demo.self)

    /// Line-buffers stdout, so a log file or pipe sees each state line as it happens (and
    /// keeps it if the process is killed), then runs the subcommand.
    static func main() {
        voice_line_buffer_stdout()
        main(nil)
    }
}
