import ArgumentParser
import Dispatch
import Foundation
import VoiceConference
import VoiceCore
import VoiceSupport

/// `voicecall conference`: hosts conference rooms: calls to `sip:room@host;conference` (or the
/// forms given) join the room; each participant hears all the others.
struct Conference: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Hosts conference rooms: calls addressed to a room join it and hear each other.")

    @OptionGroup var client: ClientOptions
    @Option(help: "Most participants in one room.") var maxParticipants = 16
    @Option(help: "A room that exists from the start; repeat for several.") var room: [String] = []
    @Flag(help: "Refuse (404) calls to rooms not given with --room.") var knownRoomsOnly = false
    @Option(help: "Also take rooms named with this user prefix (sip:<prefix>room@host), as Asterisk dialplans do.") var userPrefix: String?
    @Option(help: "Also take rooms named in a header of calls to this user: user:Header-Name.") var focus: String?
    @Flag(help: "Do not send REGISTER; only listen on the bound address.") var noRegister = false
    @Option(help: "Seconds to run (0: until interrupted).") var duration = 0
    @Option(help: "Record each room's mix to FILE-<room> (WAV, or Ogg Opus for .opus/.ogg), from its opening to its end.")
    var recordBoth: String?

    func run() throws {
        var configuration = try client.makeConfiguration()
        configuration.registers = !noRegister
        var addressing: [ConferenceAddressing] = [.uriParameter]
        if let userPrefix { addressing.append(.userPrefix(userPrefix)) }
        if let focus {
            guard let colon = focus.firstIndex(of: ":"), colon != focus.startIndex, colon != focus.index(before: focus.endIndex) else {
                throw ValidationError("--focus must be user:Header-Name")
            }
            addressing.append(.focus(user: String(focus[..<colon]), header: String(focus[focus.index(after: colon)...])))
        }
        guard (1...1_000).contains(maxParticipants) else { throw ValidationError("--max-participants takes 1–1000") }
        let options = ConferenceServerOptions(
            maximumParticipants: maxParticipants, knownRooms: Set(room), knownRoomsOnly: knownRoomsOnly, addressing: addressing)
        let voice = try VoiceClient(configuration: configuration)
        defer { voice.shutdown() }
        let printer = ConferencePrinter(recordBoth: recordBoth)
        let server = ConferenceServer(client: voice, options: options, delegate: printer, delegateQueue: printer.queue)
        let started = DispatchSemaphore(value: 0)
        let failure = Locked<VoiceError?>(nil)
        server.start { error in
            failure.withLock { $0 = error }
            started.signal()
        }
        started.wait()
        if let error = failure.withLock({ $0 }) {
            print("registration failed: \(error.code.rawValue) \(error)".escapingControlCharacters)
            throw ExitCode(1)
        }
        print("conference rooms on \(voice.localEndpoint): call sip:<room>@\(voice.localEndpoint.host):\(voice.localEndpoint.port);conference".escapingControlCharacters)
        let interrupt = Interrupt()
        _ = interrupt.wait(seconds: duration > 0 ? TimeInterval(duration) : nil)
        server.stop()
        printer.queue.sync {}
        printer.waitForRecordings()
        print("late mixing periods: \(server.lateMixingPeriods)")
    }
}

/// Prints a conference server's events, a line each.
final class ConferencePrinter: ConferenceServerDelegate {
    let queue = DispatchQueue(label: "voicecall.conference")
    /// `--record-both`: each room's mix goes to this path with the room's id before the extension.
    private let recordBoth: String?
    private let recordings = DispatchGroup()

    init(recordBoth: String? = nil) { self.recordBoth = recordBoth }

    /// The path `room` is recorded to: `calls.wav` → `calls-standup.wav`.
    static func recordingPath(_ path: String, room: String) -> String {
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension
        let stem = url.deletingPathExtension().path
        return stem + "-" + room.map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined() + (ext.isEmpty ? "" : "." + ext)
    }

    /// Waits (up to 5 s) for the rooms' recordings to be finished.
    func waitForRecordings() { _ = recordings.wait(timeout: .now() + 5) }

    private func record(_ room: String, on server: ConferenceServer) {
        guard let recordBoth else { return }
        let path = Self.recordingPath(recordBoth, room: room)
        recordings.enter()
        do {
            try server.startRecording(room: room, to: path) { [recordings] summary in
                let error = summary.error.map { ": \($0)" } ?? ""
                print(String(format: "room %@ recorded: %.1f s to %@ (%d samples dropped)%@", room, summary.seconds, summary.path, summary.droppedSamples, error)
                    .escapingControlCharacters)
                recordings.leave()
            }
            print("recording room \(room) to \(path)".escapingControlCharacters)
        } catch {
            print("cannot record room \(room): \(error)".escapingControlCharacters)
            recordings.leave()
        }
    }

    func conferenceServer(_ server: ConferenceServer, didReport event: ConferenceEvent) {
        let line: String
        switch event {
        case .roomCreated(let room):
            line = "room \(room) open"
            record(room, on: server)
        case .participantJoined(let p): line = "\(p) joined (\(p.callSid))"
        case .participantLeft(let p, let error): line = "\(p) left\(error.map { ": \($0.code.rawValue) \($0)" } ?? "")"
        case .talking(let p, let talking): line = "\(p) \(talking ? "talks" : "is silent")"
        case .muted(let p, let muted): line = "\(p) \(muted ? "muted" : "unmuted")"
        case .roomEnded(let room): line = "room \(room) ended"
        }
        print(line.escapingControlCharacters)
    }
}
