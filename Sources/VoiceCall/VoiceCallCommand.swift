import ArgumentParser

@main
struct VoiceCallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voicecall",
        abstract: "Places and receives encrypted SIP voice calls with VoiceCore.",
        subcommands: [Demo.self, PlaceCall.self, Listen.self],
        defaultSubcommand: Demo.self)
}
