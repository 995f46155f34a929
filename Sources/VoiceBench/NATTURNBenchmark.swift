import ArgumentParser
import Foundation
import VoiceSupport
import VoiceTestKit

/// `ice_connect_ms_p50_nat_turn`: how long ICE takes to find a path when only a TURN relay
/// works, through real NATs (``NATCall/runWithBothBehindNATs(turn:)``: both parties behind
/// nftables NATs that let only SIP and TURN out, coturn and Kamailio between them). Read from
/// the caller's stream (its start to a selected pair), as `voicecall` prints it.
struct NATTURN: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nat-turn",
        abstract: "Prints ice_connect_ms_p50_nat_turn: ICE through two NATs where only the relayed pair works (needs root, iproute2, nftables, kamailio, coturn and voicecall).")

    @Option(help: "Calls measured.") var runs = 5

    func run() throws {
        let voicecall = try NetChange.namespaceVoicecall()
        var ice: [Double] = []
        var dtls: [Double] = []
        for run in 1...max(1, runs) {
            let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "nat-turn-bench")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            var call = NATCall(voicecall: voicecall, directory: directory)
            call.callSeconds = 3
            let result = try call.runWithBothBehindNATs(turn: true)
            guard let line = result.natedLog.split(separator: "\n").first(where: { $0.contains("media path: relay") }),
                let timings = Self.timings(in: String(line))
            else {
                throw BenchError("run \(run): no relayed path; callbacks \(result.natedCallbacks)\n\(result.natedLog)")
            }
            print(String(format: "nat-turn: run %d: ICE connected in %.1f ms, DTLS in %.1f ms", run, timings.ice, timings.dtls))
            flushOutput()
            ice.append(timings.ice)
            dtls.append(timings.dtls)
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        printFigures([
            ("ice_connect_ms_p50_nat_turn", String(format: "%.1f", median(ice))),
            ("dtls_handshake_ms_p50_nat_turn", String(format: "%.1f", median(dtls))),
        ])
    }

    /// The ICE and DTLS times of voicecall's "media path: …, ICE connected in X ms, DTLS in Y ms".
    static func timings(in line: String) -> (ice: Double, dtls: Double)? {
        func number(after marker: String) -> Double? {
            guard let range = line.range(of: marker) else { return nil }
            return Double(line[range.upperBound...].prefix { $0.isNumber || $0 == "." })
        }
        guard let ice = number(after: "ICE connected in "), let dtls = number(after: "DTLS in ") else { return nil }
        return (ice, dtls)
    }
}
