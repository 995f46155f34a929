import Foundation

/// aiortc (PyPI), a complete WebRTC stack in Python (ICE by aioice, DTLS-SRTP, Opus), run as a
/// peer for interop tests from the `aiortc/peer.py` template: one audio transceiver, SDP
/// exchanged through files, a WAV played and what it receives recorded to a WAV.
public final class AiortcPeer: @unchecked Sendable {
    // @unchecked: the process handle is only touched by the test thread that made the peer.
    /// Which side of offer/answer aiortc takes.
    public enum Role: String, Sendable {
        /// aiortc writes the offer; we answer.
        case offerer = "offer"
        /// We offer; aiortc answers.
        case answerer = "answer"
    }

    /// Where aiortc records what it receives (WAV, 48 kHz stereo).
    public let recording: String
    private let directory: String
    private let localPath: String
    private let remotePath: String
    private let statsPath: String
    private let logPath: String
    private let process: Process

    /// Whether `python3` can import aiortc.
    public static var isInstalled: Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import aiortc"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        do { try probe.run() } catch { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }

    /// Starts aiortc as `role`, playing the WAV file `play` and recording for `seconds` once connected.
    public init(role: Role, play: String, seconds: Double = 4, templateDirectory: String? = PeerTemplates.directory) throws(SIPPeerError) {
        guard let templateDirectory else { throw SIPPeerError(.invalidTemplate, "no aiortc template: VoiceTestKit's resource bundle is missing") }
        directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "aiortc")
        localPath = directory + "/aiortc.sdp"
        remotePath = directory + "/ours.sdp"
        statsPath = directory + "/stats.json"
        logPath = directory + "/aiortc.log"
        recording = directory + "/received.wav"
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", templateDirectory + "/aiortc/peer.py", "--role", role.rawValue, "--local", localPath, "--remote", remotePath,
            "--play", play, "--record", recording, "--stats", statsPath, "--seconds", String(seconds),
        ]
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = log
        process.standardError = log
        do { try process.run() } catch { throw SIPPeerError(.launchFailed, "python3 aiortc/peer.py: \(error)") }
    }

    deinit { stop() }

    /// aiortc's offer or answer, once written (nil after `timeout`).
    public func localDescription(timeout: TimeInterval = 15) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: localPath, encoding: .utf8) { return text }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }

    /// Hands aiortc our offer or answer.
    public func setRemoteDescription(_ sdp: String) throws {
        try sdp.write(toFile: remotePath + ".part", atomically: false, encoding: .utf8)
        try FileManager.default.moveItem(atPath: remotePath + ".part", toPath: remotePath)
    }

    /// Waits for aiortc to finish its run; returns its view of the connection
    /// (`connectionState`, `iceConnectionState`, `dtlsState`, `connected_ms`), nil if it did not
    /// finish in time or wrote none.
    public func waitForStats(timeout: TimeInterval = 40) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard let data = FileManager.default.contents(atPath: statsPath) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// The end of aiortc's output, for failure messages.
    public func logTail(lines: Int = 30) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// Ends the process and removes its files.
    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
