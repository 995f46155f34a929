import ArgumentParser
import Dispatch
import Foundation
import Logging
import VoiceCore
import VoiceService
import VoiceSupport

/// `voicecall preflight`: a short call to an echo, and the report of what this network and
/// server can carry (Twilio's preflight test).
struct Preflight: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Calls an echo for a few seconds and reports what this network can carry: a rating, RTT, jitter, loss, MOS, timings, ICE.")

    @Argument(help: "The echo to call: a user at --domain or a SIP address (default: echo). Ignored with --local-echo.")
    var destination = "echo"
    @OptionGroup var client: ClientOptions
    @Option(help: "Seconds to sample once connected (1–300).") var duration = 10
    @Flag(help: "Start an echo on this machine's loopback and test against it (no server needed).") var localEcho = false

    func run() throws {
        guard (1...300).contains(duration) else { throw ValidationError("--duration takes 1–300 seconds") }
        let voice = try client.makeClient()
        defer { voice.shutdown() }
        var echoClient: VoiceClient?
        defer { echoClient?.shutdown() }
        var target = destination
        if localEcho {
            let (echo, address) = try Self.startLocalEcho(lasting: .seconds(duration + 30))
            echoClient = echo
            target = address
            print("echo at \(address)")
        }
        var options = PreflightOptions(destination: target)
        options.duration = .seconds(duration)
        options.accessToken = client.token
        let queue = DispatchQueue(label: "voicecall.preflight")
        options.delegateQueue = queue
        let printer = PreflightPrinter()
        let test = voice.runPreflight(options: options, delegate: printer)
        let interrupt = Interrupt()
        if interrupt.wait(seconds: Double(duration) + 60, until: { printer.ended }) {
            test.stop()
            _ = printer.done.wait(timeout: .now() + 5)
        }
        guard printer.succeeded else { throw ExitCode(1) }
    }

    /// An ``EchoResponder`` on 127.0.0.1 at a port of its own whose calls last up to `lasting`;
    /// returns its client and its address.
    static func startLocalEcho(lasting: Duration) throws -> (VoiceClient, String) {
        var logger = Logger(label: "voicecall.echo")
        logger.logLevel = .warning
        let configuration = VoiceClientConfiguration(identity: "echo", domain: "127.0.0.1", registers: false, logger: logger)
        let echo = try VoiceClient(configuration: configuration)
        let responder = EchoResponder(maximumCallDuration: lasting)
        let ready = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "voicecall.echo")
        echo.register(notificationDelegate: responder, delegateQueue: queue) { _ in ready.signal() }
        _ = ready.wait(timeout: .now() + 10)
        let contact = Locked<String>("")
        let known = DispatchSemaphore(value: 0)
        echo.getContactAddress(queue: queue) { address in
            contact.withLock { $0 = address }
            known.signal()
        }
        guard known.wait(timeout: .now() + 10) == .success else { throw ValidationError("the local echo did not start") }
        return (echo, contact.withLock { $0 })
    }
}

/// Prints each step of a preflight and the report.
final class PreflightPrinter: PreflightDelegate, @unchecked Sendable {
    // @unchecked: `outcome` is behind a lock; the rest is set once.
    let done = DispatchSemaphore(value: 0)
    private let outcome = Locked<Bool?>(nil)

    var ended: Bool { outcome.withLock { $0 } != nil }
    var succeeded: Bool { outcome.withLock { $0 } == true }

    func preflightDidConnect(_ test: PreflightTest) { print("preflight: connected (\(test.callSid ?? "-"))") }

    func preflight(_ test: PreflightTest, didReceiveSample sample: PreflightSample) {
        let rtt = sample.roundTripTimeMs.map { String(format: "%.1f ms", $0) } ?? "-"
        let mos = sample.mos.map { String(format: "%.2f", $0) } ?? "-"
        print(String(format: "preflight: %2.0f s  rtt %@  jitter %.1f ms  loss %.1f %%  MOS %@", sample.elapsed / .seconds(1), rtt, sample.jitterMs, sample.packetsLostFraction * 100, mos))
    }

    func preflight(_ test: PreflightTest, didRaiseWarning warning: PreflightWarning) {
        print("preflight: warning \(warning.warning)")
    }

    func preflight(_ test: PreflightTest, didCompleteWith report: PreflightReport) {
        for line in Self.lines(report) { print(line) }
        outcome.withLock { $0 = true }
        done.signal()
    }

    func preflight(_ test: PreflightTest, didFailWithError error: VoiceError) {
        print("preflight failed: \(error.code.rawValue) \(error)".escapingControlCharacters)
        outcome.withLock { $0 = false }
        done.signal()
    }

    /// The report as text.
    static func lines(_ report: PreflightReport) -> [String] {
        func stat(_ s: PreflightStatistic?, _ unit: String, scale: Double = 1, format: String = "%.1f") -> String {
            guard let s else { return "-" }
            return [s.minimum, s.average, s.maximum].map { String(format: format, $0 * scale) }.joined(separator: " / ") + unit
        }
        func ms(_ d: Duration?) -> String { d.map { String(format: "%.0f ms", $0 / .milliseconds(1)) } ?? "-" }
        var lines = ["preflight: \(report.callQuality?.rawValue ?? "no rating (no media came back)")"]
        lines.append("  MOS       min / avg / max  \(stat(report.mos, "", format: "%.2f"))")
        lines.append("  RTT       min / avg / max  \(stat(report.roundTripTimeMs, " ms"))")
        lines.append("  jitter    min / avg / max  \(stat(report.jitterMs, " ms"))")
        lines.append("  loss      min / avg / max  \(stat(report.packetsLostFraction, " %", scale: 100))")
        let t = report.networkTiming
        lines.append("  timing    signaling \(ms(t.signaling)), ICE \(ms(t.ice)), DTLS \(ms(t.dtls)), connected \(ms(t.peerConnection))")
        if let pair = report.selectedCandidatePair {
            lines.append("  pair      \(pair.local) -> \(pair.remote)" + (report.isTURNRequired == true ? " (TURN needed)" : ""))
        }
        lines.append("  ICE       \(report.localCandidates.count) local, \(report.remoteCandidates.count) remote candidates")
        let warnings = report.warnings.map { "\($0.warning) at \(Int($0.elapsed / .seconds(1))) s" }
        lines.append("  warnings  \(warnings.isEmpty ? "none" : warnings.joined(separator: ", "))")
        return lines
    }
}
