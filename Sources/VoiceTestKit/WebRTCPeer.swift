import Foundation

/// Another WebRTC stack run as a peer for interop tests, from the templates' `peer.py` scripts:
/// aiortc (PyPI; ICE by aioice, DTLS-SRTP, Opus) or headless Chromium (Debian's `chromium`,
/// driving a page that uses the browser's own RTCPeerConnection). One audio transceiver, SDP
/// exchanged through files, a WAV played and what it receives recorded to a WAV.
public final class WebRTCPeer: @unchecked Sendable {
    /// Which stack.
    public enum Stack: String, Sendable {
        case aiortc
        case chromium
    }

    // @unchecked: the process handle is only touched by the test thread that made the peer.
    /// Which side of offer/answer the peer takes.
    public enum Role: String, Sendable {
        /// The peer writes the offer; we answer.
        case offerer = "offer"
        /// We offer; the peer answers.
        case answerer = "answer"
    }

    /// The stack.
    public let stack: Stack
    /// Where the peer records what it receives (WAV, 48 kHz; stereo from aiortc, mono from Chromium).
    public let recording: String
    private let directory: String
    private let localPath: String
    private let remotePath: String
    private let statsPath: String
    private let logPath: String
    private let readyPath: String
    private let process: Process

    /// Whether the stack is installed: `python3` can import aiortc, or `chromium` is on PATH.
    public static func isInstalled(_ stack: Stack) -> Bool {
        if stack == .chromium { return SIPPeerProcess.isInstalled("chromium") }
        return PythonModule.isImportable("aiortc")
    }

    /// Starts `stack` as `role`, playing the WAV file `play` and recording for `seconds` once connected.
    public convenience init(
        _ stack: Stack, role: Role, play: String, seconds: Double = 4, templateDirectory: String? = PeerTemplates.directory
    ) throws(SIPPeerError) {
        try self.init(stack, play: play, seconds: seconds, templateDirectory: templateDirectory, extra: ["--role", role.rawValue])
    }

    /// Headless Chromium as `role` that, once it has recorded for `seconds`, stops sending
    /// before it posts the recording, then waits `settle` seconds before it reads getStats: the
    /// other side stops too when the recording appears, and both sides' counters stand still.
    package static func chromiumSettling(
        role: Role, play: String, seconds: Double = 4, settle: Double, templateDirectory: String? = PeerTemplates.directory
    ) throws(SIPPeerError) -> WebRTCPeer {
        try WebRTCPeer(
            .chromium, play: play, seconds: seconds, templateDirectory: templateDirectory,
            extra: ["--role", role.rawValue, "--query", "settle=\(settle)"])
    }

    /// Starts `stack` as `role` inside `namespace` (`ip netns exec`): it gathers the
    /// namespace's addresses, of whichever families it has.
    package convenience init(
        _ stack: Stack, role: Role, play: String, seconds: Double = 4, in namespace: NetworkNamespace,
        templateDirectory: String? = PeerTemplates.directory
    ) throws(SIPPeerError) {
        try self.init(
            stack, play: play, seconds: seconds, templateDirectory: templateDirectory, extra: ["--role", role.rawValue], namespace: namespace.name)
    }

    /// Headless Chromium receive-only (no microphone asked for, so no capture permission: it
    /// hides its host addresses behind mDNS `.local` names, RFC 8828), run inside `namespace`
    /// (which needs a default route: without one Chromium gathers nothing). It records what
    /// it hears for `seconds` once connected.
    package static func receiveOnlyChromium(
        role: Role, seconds: Double = 4, in namespace: NetworkNamespace, templateDirectory: String? = PeerTemplates.directory
    ) throws(SIPPeerError) -> WebRTCPeer {
        try WebRTCPeer(
            .chromium, play: nil, seconds: seconds, templateDirectory: templateDirectory, extra: ["--role", role.rawValue, "--receive-only"],
            namespace: namespace.name)
    }

    /// Headless Chromium as a SIP-over-WebSocket softphone (the template's `sipphone.html`): it
    /// connects to `webSocketURL` (`ws://`), registers `user` with `password` in `realm`, then
    /// calls `target` (a SIP URI) or, with `target` nil, waits for a call and answers it. Media
    /// is the browser's WebRTC (ICE, DTLS-SRTP, Opus) with the WAV `play` as its microphone;
    /// it records `seconds` of what it hears once connected. The caller hangs up after that.
    /// With `registers` false it skips REGISTER (calling a server that takes calls directly);
    /// with `waitsForHangUp`, as the caller it waits for the callee's BYE instead of sending one.
    public static func sipPhone(
        webSocketURL: String, user: String, password: String, realm: String, calling target: String?, play: String,
        seconds: Double = 4, registers: Bool = true, waitsForHangUp: Bool = false, templateDirectory: String? = PeerTemplates.directory
    ) throws(SIPPeerError) -> WebRTCPeer {
        for (value, what) in [(webSocketURL, "WebSocket URL"), (user, "user"), (password, "password"), (realm, "realm")] {
            try SIPPeerTemplate.validate(value, as: what)
        }
        // A target may carry URI parameters (`sip:room@host;conference`): `;` is percent-encoded below.
        try SIPPeerTemplate.validate((target ?? "x").replacingOccurrences(of: ";", with: ","), as: "target")
        var query = URLComponents()
        query.queryItems = [
            URLQueryItem(name: "ws", value: webSocketURL), URLQueryItem(name: "user", value: user),
            URLQueryItem(name: "password", value: password), URLQueryItem(name: "realm", value: realm),
            URLQueryItem(name: "mode", value: target == nil ? "answer" : "call"), URLQueryItem(name: "target", value: target ?? ""),
            URLQueryItem(name: "register", value: registers ? "1" : "0"),
            URLQueryItem(name: "hangup", value: waitsForHangUp ? "remote" : "local"),
        ]
        return try WebRTCPeer(
            .chromium, play: play, seconds: seconds, templateDirectory: templateDirectory,
            extra: [
                "--page", "sipphone.html", "--query", (query.percentEncodedQuery ?? "").replacingOccurrences(of: ";", with: "%3B"), "--ready",
            ], appendsReadyPath: true)
    }

    private init(
        _ stack: Stack, play: String?, seconds: Double, templateDirectory: String?, extra: [String], appendsReadyPath: Bool = false,
        namespace: String? = nil
    ) throws(SIPPeerError) {
        guard let templateDirectory else { throw SIPPeerError(.invalidTemplate, "no \(stack) template: VoiceTestKit's resource bundle is missing") }
        self.stack = stack
        directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: stack.rawValue)
        localPath = directory + "/peer.sdp"
        remotePath = directory + "/ours.sdp"
        statsPath = directory + "/stats.json"
        logPath = directory + "/peer.log"
        readyPath = directory + "/ready"
        recording = directory + "/received.wav"
        process = Process()
        let inNamespace = namespace.map { [NetworkNamespace.ipPath, "netns", "exec", $0] } ?? []
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            inNamespace
            + [
                "python3", templateDirectory + "/\(stack.rawValue)/peer.py", "--local", localPath, "--remote", remotePath,
                "--record", recording, "--stats", statsPath, "--seconds", String(seconds),
            ] + (play.map { ["--play", $0] } ?? []) + extra + (appendsReadyPath ? [readyPath] : [])
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = log
        process.standardError = log
        do { try process.run() } catch { throw SIPPeerError(.launchFailed, "python3 \(stack.rawValue)/peer.py: \(error)") }
    }

    /// Waits until the softphone has registered (true), or `timeout` passed or it ended (false).
    public func waitUntilReady(timeout: TimeInterval = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, process.isRunning {
            if FileManager.default.fileExists(atPath: readyPath) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return FileManager.default.fileExists(atPath: readyPath)
    }

    deinit { stop() }

    /// The peer's offer or answer, once written (nil after `timeout`).
    public func localDescription(timeout: TimeInterval = 15) -> String? { Self.contents(of: localPath, within: timeout) }

    /// Hands the peer our offer or answer.
    public func setRemoteDescription(_ sdp: String) throws {
        try setRemoteDescription(sdp, at: remotePath)
    }

    /// Hands Chromium answering a second offer during the call (an ICE restart after our host
    /// moved): the page answers it as it did the first.
    package func setSecondRemoteOffer(_ sdp: String) throws {
        try setRemoteDescription(sdp, at: remotePath + ".2")
    }

    /// Chromium's answer to ``setSecondRemoteOffer(_:)``, once written (nil after `timeout`).
    package func secondLocalDescription(timeout: TimeInterval = 15) -> String? { Self.contents(of: localPath + ".2", within: timeout) }

    /// The text of the file at `path` once the peer has written it (whole: it writes aside and
    /// renames), or nil after `timeout`.
    private static func contents(of path: String, within timeout: TimeInterval) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) { return text }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }

    private func setRemoteDescription(_ sdp: String, at path: String) throws {
        try sdp.write(toFile: path + ".part", atomically: false, encoding: .utf8)
        try FileManager.default.moveItem(atPath: path + ".part", toPath: path)
    }

    /// Waits for the peer to finish its run; returns its view of the connection
    /// (`connectionState`, `iceConnectionState`, `dtlsState`, `connected_ms`; Chromium adds
    /// `srtpCipher`, `tlsVersion`, `selectedPair` from getStats), nil if it did not finish in
    /// time or wrote none.
    public func waitForStats(timeout: TimeInterval = 60) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard let data = FileManager.default.contents(atPath: statsPath) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// The end of the peer's output, for failure messages.
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
