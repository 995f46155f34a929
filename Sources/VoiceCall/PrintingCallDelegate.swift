import Dispatch
import Foundation
import Synchronization
import VoiceCore

/// Prints a call's state changes and lets the command wait for them. Runs on `queue`.
final class PrintingCallDelegate: CallDelegate, @unchecked Sendable {
    // @unchecked: mutated only on `queue`, read after `ended` was signalled.
    let name: String
    let queue: DispatchQueue
    private let started = Date()
    private let connectedSignal = DispatchSemaphore(value: 0)
    private let endedSignal = DispatchSemaphore(value: 0)
    private let progress = Mutex(Progress())
    private(set) var connected = false
    private(set) var endError: VoiceError?
    private(set) var failed = false

    private struct Progress {
        var connected = false
        var ended = false
        var endErrorCode: Int?
    }

    /// Readable from any thread.
    var hasConnectedOrEnded: Bool { progress.withLock { $0.connected || $0.ended } }
    /// Readable from any thread.
    var hasEnded: Bool { progress.withLock { $0.ended } }
    /// The code the call failed or ended with, nil for a clean end; readable from any thread.
    var endErrorCode: Int? { progress.withLock { $0.endErrorCode } }

    init(name: String) {
        self.name = name
        self.queue = DispatchQueue(label: "voicecall.\(name)")
    }

    private func say(_ text: String) {
        print(String(format: "%6.2fs %@: %@", Date().timeIntervalSince(started), name, text))
    }

    func callDidStartRinging(_ call: Call) { say("ringing (\(call.sid))") }

    func callDidConnect(_ call: Call) {
        connected = true
        progress.withLock { $0.connected = true }
        say("connected (\(call.details.codec ?? "?"))")
        connectedSignal.signal()
    }

    func call(_ call: Call, didFailToConnectWithError error: VoiceError) {
        failed = true
        endError = error
        progress.withLock {
            $0.ended = true
            $0.endErrorCode = error.code.rawValue
        }
        say("failed to connect: \(error.code.rawValue) \(error)")
        connectedSignal.signal()
        endedSignal.signal()
    }

    func call(_ call: Call, didDisconnectWithError error: VoiceError?) {
        endError = error
        progress.withLock {
            $0.ended = true
            $0.endErrorCode = error?.code.rawValue
        }
        say("disconnected" + (error.map { ": \($0.code.rawValue) \($0)" } ?? ""))
        endedSignal.signal()
    }

    func call(_ call: Call, isReconnectingWithError error: VoiceError) { say("reconnecting: \(error.code.rawValue) \(error)") }

    func callDidReconnect(_ call: Call) { say("reconnected") }

    func call(_ call: Call, didReceiveQualityWarnings currentWarnings: Set<CallQualityWarning>,
              previousWarnings: Set<CallQualityWarning>) {
        say("quality warnings: \(currentWarnings.map { "\($0)" }.sorted()) (were \(previousWarnings.map { "\($0)" }.sorted()))")
    }

    /// Waits until the call connected or failed; true if connected.
    func waitForConnected(timeout: TimeInterval) -> Bool {
        _ = connectedSignal.wait(timeout: .now() + timeout)
        return queue.sync { connected }
    }

    /// Waits until the call ended.
    func waitForEnd(timeout: TimeInterval) -> Bool {
        endedSignal.wait(timeout: .now() + timeout) == .success
    }
}

/// Prints the per-second line of a call from its stats.
enum CallStatsLine {
    static func line(_ name: String, _ report: CallStatsReport?, second: Int) -> String {
        guard let report else { return String(format: "%3ld s %@: no media", second, name) }
        let local = report.localAudioTrack
        let remote = report.remoteAudioTrack
        return String(
            format: "%3ld s %@: out level %5ld  in level %5ld  sent %4ld  recv %4ld  lost %3ld  jitter %5.1f ms  rtt %@  MOS %@",
            second, name, local?.audioLevel ?? 0, remote?.audioLevel ?? 0, Int(local?.packetsSent ?? 0),
            Int(remote?.packetsReceived ?? 0), Int(remote?.packetsLost ?? 0), remote?.jitterMs ?? 0,
            report.roundTripTimeMs.map { String(format: "%5.1f ms", $0) } ?? "   -    ",
            remote?.mos.map { String(format: "%.2f", $0) } ?? " -  ")
    }
}
