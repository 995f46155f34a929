import VoiceEmbedded
import Dispatch
import Foundation
import VoiceCore
import VoiceMedia
import VoiceSupport

/// Prints a call's state changes and lets the command wait for them. Callbacks run on
/// `queue`; what the command reads (connected, ended, the end error) sits behind a lock.
final class PrintingCallDelegate: CallDelegate, Sendable {
    let name: String
    let queue: DispatchQueue
    private let started = Date()
    private let progress = Locked(Progress())
    /// Where the call's two directions are recorded from its connection (`--record-both`).
    private let recordBoth: String?
    private let recordingDone = DispatchSemaphore(value: 0)

    private struct Progress {
        var connected = false
        var ended = false
        var endError: VoiceError?
    }

    init(name: String, recordBoth: String? = nil) {
        self.name = name
        self.recordBoth = recordBoth
        self.queue = DispatchQueue(label: "voicecall.\(name)")
    }

    /// Waits (up to `timeout` seconds) for the `--record-both` file to be finished, if one was started.
    func waitForRecording(timeout: TimeInterval = 5) {
        guard recordBoth != nil, hasConnected else { return }
        _ = recordingDone.wait(timeout: .now() + timeout)
    }

    /// Whether the call connected (it may have ended since).
    var hasConnected: Bool { progress.withLock { $0.connected } }
    /// Whether the call failed or ended.
    var hasEnded: Bool { progress.withLock { $0.ended } }
    /// The error the call failed or ended with; nil for a clean end or while it runs.
    var endError: VoiceError? { progress.withLock { $0.endError } }

    private func say(_ text: String) {
        print(String(format: "%6.2fs %@: %@", Date().timeIntervalSince(started), name, text.escapingControlCharacters))
    }

    func callDidStartRinging(_ call: Call) { say("ringing (\(call.sid))") }

    func callDidConnect(_ call: Call) {
        progress.withLock { $0.connected = true }
        say("connected (\(call.details.codec ?? "?"))")
        if let recordBoth {
            do {
                try call.startRecording(to: recordBoth) { [self] summary in
                    let error = summary.error.map { ": \($0)" } ?? ""
                    say(String(format: "recorded %.1f s to %@ (%d samples dropped)%@", summary.seconds, summary.path, summary.droppedSamples, error))
                    recordingDone.signal()
                }
                say("recording both directions to \(recordBoth)")
            } catch {
                say("cannot record: \(error)")
                recordingDone.signal()
            }
        }
        // DTLS-SRTP calls: the ICE path they run on (host, server-reflexive, relayed).
        // (A second in: the stream publishes its figures every 200 ms.)
        queue.asyncAfter(deadline: .now() + 1) { [self] in
            call.streamStats { [self] stats in
                guard let stats, let pair = stats.selectedCandidatePair else { return }
                say(
                    "media path: \(pair), ICE connected in "
                        + String(format: "%.1f ms, DTLS in %.1f ms", stats.iceConnectMilliseconds, stats.dtlsHandshakeMilliseconds))
            }
        }
    }

    func call(_ call: Call, didFailToConnectWithError error: VoiceError) {
        ended(with: error)
        say("failed to connect: \(error.code.rawValue) \(error)")
    }

    func call(_ call: Call, didDisconnectWithError error: VoiceError?) {
        ended(with: error)
        say("disconnected" + (error.map { ": \($0.code.rawValue) \($0)" } ?? ""))
    }

    private func ended(with error: VoiceError?) {
        progress.withLock {
            $0.ended = true
            $0.endError = error
        }
    }

    func call(_ call: Call, isReconnectingWithError error: VoiceError) { say("reconnecting: \(error.code.rawValue) \(error)") }

    func callDidReconnect(_ call: Call) { say("reconnected") }

    func call(_ call: Call, didReceiveDigit digit: CallDigit) { say("digit \(digit)") }

    func call(_ call: Call, didReceiveQualityWarnings currentWarnings: Set<CallQualityWarning>,
              previousWarnings: Set<CallQualityWarning>) {
        say("quality warnings: \(currentWarnings.map { "\($0)" }.sorted()) (were \(previousWarnings.map { "\($0)" }.sorted()))")
    }

    /// Waits until the call connected or failed; true if connected.
    func waitForConnected(timeout: TimeInterval) -> Bool {
        _ = PollingWait.until(timeout: timeout, every: 0.01) { hasConnected || hasEnded }
        return hasConnected
    }

    /// Waits until the call ended; false on timeout.
    func waitForEnd(timeout: TimeInterval) -> Bool {
        PollingWait.until(timeout: timeout, every: 0.01) { hasEnded }
    }
}

/// Prints the per-second line of a call from its stats.
enum CallStatsLine {
    static func line(_ name: String, _ report: CallStatsReport?, second: Int) -> String {
        guard let report else { return String(format: "%3ld s %@: no media", second, name) }
        let local = report.localAudioTrack
        let remote = report.remoteAudioTrack
        return String(
            format: "%3ld s %@: out level %5ld  in level %5ld  sent %4ld  recv %4ld  lost %3ld  jitter %5.1f ms  rtt %@  MOS %@%@",
            second, name, local?.audioLevel ?? 0, remote?.audioLevel ?? 0, Int(local?.packetsSent ?? 0),
            Int(remote?.packetsReceived ?? 0), Int(remote?.packetsLost ?? 0), remote?.jitterMs ?? 0,
            report.roundTripTimeMs.map { String(format: "%5.1f ms", $0) } ?? "   -    ",
            remote?.mos.map { String(format: "%.2f", $0) } ?? " -  ", refused(report.security)) + processing(report.audioProcessing)
    }

    /// The stages that run (and the echo canceller's ERLE), or why the device's audio is not processed.
    private static func processing(_ p: CallAudioProcessingStats) -> String {
        let why = p.fallback.map { " (\($0))" } ?? ""
        let options = AudioProcessingOptions(
            echoCancellation: p.echoCancellation, noiseSuppression: p.noiseSuppression, autoGainControl: p.autoGainControl,
            highPassFilter: p.highPassFilter)
        guard options.isEnabled || p.fallback != nil else { return "" }
        let erle = p.echoReturnLossEnhancement.map { String(format: ", erle %.0f dB", $0) } ?? ""
        return "  processing: \(options)\(erle)\(why)"
    }

    /// The refused-packet counters, shown once any is non-zero.
    private static func refused(_ s: CallSecurityStats) -> String {
        guard s.total > 0 else { return "" }
        return "  refused: auth \(s.srtpAuthFailures) replay \(s.srtpReplays) malformed \(s.malformedPackets) foreign-ssrc \(s.rejectedSourcePackets)"
    }
}
