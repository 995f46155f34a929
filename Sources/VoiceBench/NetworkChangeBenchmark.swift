import ArgumentParser
import Foundation
import VoiceSupport
import VoiceTestKit

/// Prints what a DHCP renumbering costs a call (``NetworkChangeCall``, case 1): the longest
/// stretch of audio missing at either receiver, and the time from the change to `didReconnect`.
/// With the default media security (ICE and DTLS-SRTP) the move is an ICE restart
/// (`media_gap_ms_ice_restart` names the same gap); `--sdes` measures keys in the SDP, where the
/// peer follows our packets to the new address.
struct NetChange: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "netchange",
        abstract: "Prints netchange_media_gap_ms and netchange_reconnect_ms: a call renumbered mid-call (needs root, iproute2 and voicecall).")

    @Option(help: "Calls measured; the figures are the worst of them.") var runs = 3
    @Option(help: "Keep each run's logs (both sides with --verbose) and recordings in this directory.") var logs: String?
    @Flag(help: "Also measure the move with SDES-SRTP (no ICE restart): netchange_media_gap_ms_sdes.") var sdes = false

    func run() throws {
        var figures = try Self.figures(runs: runs, logs: logs)
        if sdes {
            let plain = try Self.figures(runs: runs, mediaSecurity: "sdes", logs: logs.map { $0 + "/sdes" })
            figures += plain.map { ($0.0 + "_sdes", $0.1) }
        }
        printFigures(figures)
    }

    /// `voicecall` built next to voice-bench, once network namespaces can be made (root, iproute2).
    static func namespaceVoicecall() throws -> String {
        if case .skip(let why) = NetworkNamespace.requirement() { throw BenchError(why) }
        if case .fail(let why) = NetworkNamespace.requirement() { throw BenchError(why) }
        let voicecall = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("voicecall").path
        guard FileManager.default.isExecutableFile(atPath: voicecall) else {
            throw BenchError("voicecall is not built next to voice-bench (\(voicecall)): swift build -c release --product voicecall")
        }
        return voicecall
    }

    /// The worst gap and reconnection time over `runs` calls; `mediaSecurity` as voicecall takes it
    /// (nil: the default, ICE and DTLS-SRTP); with `logs`, each run's directory is copied there.
    static func figures(runs: Int, mediaSecurity: String? = nil, logs: String? = nil) throws -> [(String, String)] {
        let voicecall = try namespaceVoicecall()
        var gaps: [Int] = []
        var reconnects: [Int] = []
        for run in 1...max(1, runs) {
            let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "netchange-bench")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            var call = NetworkChangeCall(voicecall: voicecall, directory: directory)
            call.mediaSecurity = mediaSecurity
            call.verbose = logs != nil
            let result = try call.run(.renumber)
            if let logs {
                try? FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
                try? FileManager.default.removeItem(atPath: logs + "/run\(run)")
                try? FileManager.default.copyItem(atPath: directory, toPath: logs + "/run\(run)")
            }
            guard result.moverCallbacks.contains("reconnected"), let reconnect = result.reconnectMilliseconds else {
                throw BenchError("run \(run): the call did not reconnect; callbacks \(result.moverCallbacks)\n\(result.moverLog)")
            }
            let gap = result.gapMilliseconds.values.max() ?? 0
            print("netchange\(mediaSecurity.map { " (\($0))" } ?? ""): run \(run): reconnected \(reconnect) ms after the change; longest gap heard \(gap) ms \(result.gapMilliseconds)")
            flushOutput()
            gaps.append(gap)
            reconnects.append(reconnect)
        }
        var figures = [
            ("netchange_media_gap_ms", "\(gaps.max() ?? 0)"),
            ("netchange_reconnect_ms", "\(reconnects.max() ?? 0)"),
        ]
        if mediaSecurity == nil { figures.append(("media_gap_ms_ice_restart", "\(gaps.max() ?? 0)")) }
        return figures
    }
}
