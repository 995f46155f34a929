import ArgumentParser
import Dispatch
import Foundation
import VoiceCore

/// `voicecall call <destination>`: places one call and keeps it up for `--duration` seconds.
struct PlaceCall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call", abstract: "Calls a user, an E.164 number, a SIP address or a conference.")

    @Argument(help: "bob, client:bob, +14155550101, alice@sip.example.com, or conference:room.") var destination: String
    @OptionGroup var client: ClientOptions
    @OptionGroup var audio: AudioOptions
    @Option(help: "Seconds to stay connected.") var duration = 10
    @Option(help: "Digits to send once connected (0-9 * # w).") var digits: String?
    @Option(help: "Custom parameter name=value sent as an X- header (repeatable).") var param: [String] = []

    func run() throws {
        let voice = try client.makeClient()
        defer { voice.shutdown() }
        voice.audioDevice = try audio.makeDevice()
        var params = ["To": destination]
        for pair in param {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ValidationError("--param needs name=value, got \(pair)") }
            params[parts[0]] = parts[1]
        }
        let delegate = PrintingCallDelegate(name: "call", recordBoth: audio.recordBoth)
        let call = voice.connect(
            options: ConnectOptions(accessToken: client.token) { builder in
                builder.params = params
                builder.delegateQueue = delegate.queue
                builder.audioProcessing = audio.audioProcessing(for: voice.audioDevice)
            },
            delegate: delegate)
        let interrupt = Interrupt()
        if interrupt.wait(seconds: 60, until: { delegate.hasConnected || delegate.hasEnded }) { return try hangUp(call, delegate) }
        guard delegate.hasConnected else { throw ExitCode(1) }
        if let digits { call.sendDigits(digits) }
        for second in 1...max(1, duration) {
            if interrupt.wait(seconds: 1, until: { delegate.hasEnded }) { return try hangUp(call, delegate) }
            if delegate.hasEnded { break }
            let done = DispatchSemaphore(value: 0)
            call.getStats { report in
                print(CallStatsLine.line("call", report, second: second))
                done.signal()
            }
            _ = done.wait(timeout: .now() + 1)
        }
        try hangUp(call, delegate)
    }

    /// Ends the call if it still runs; exits 1 when it ended with an error (the peer or the
    /// network ended it with one).
    private func hangUp(_ call: Call, _ delegate: PrintingCallDelegate) throws {
        if !delegate.hasEnded { call.disconnect() }
        _ = delegate.waitForEnd(timeout: 5)
        delegate.waitForRecording()
        if delegate.endError != nil { throw ExitCode(1) }
    }
}
