import Foundation

/// linphone's command-line client (`linphonec`, Debian's `linphone-cli`) as a SIP peer on
/// 127.0.0.1 over UDP: no registration, no sound card (it sends no audio), answering every call
/// (`-a`), driven by commands written to its standard input (`call <uri>`, `transfer <uri>`,
/// `terminate`); what it prints goes to ``log``. Thread-safe.
public final class LinphonePeer: Sendable {
    /// The SIP port.
    public let port: Int
    /// `sip:user@127.0.0.1:port`.
    public let uri: String
    private let process: SIPPeerProcess
    private let input: FileHandle
    private let directory: String

    /// Whether `linphonec` is on `PATH`.
    public static var isInstalled: Bool { SIPPeerProcess.isInstalled("linphonec") }

    /// Starts linphonec as `user`, with `mediaEncryption` (`none` or `srtp`, SDES), and waits
    /// until its SIP stack is up.
    public init(
        user: String = "linphone", mediaEncryption: String = "srtp", templateDirectory: String? = PeerTemplates.directory
    ) throws(SIPPeerError) {
        guard let templates = templateDirectory else {
            throw SIPPeerError(.invalidTemplate, "no linphone template: VoiceTestKit's resource bundle is missing")
        }
        try SIPPeerTemplate.validate(user, as: "user")
        guard ["none", "srtp"].contains(mediaEncryption) else { throw SIPPeerError(.invalidValue, "media encryption \(mediaEncryption)") }
        let port = try SIPPeerProcess.freePort()
        let rtpPort = try SIPPeerProcess.freePort()
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "linphone")
        let home = directory + "/home"
        do {
            try FileManager.default.createDirectory(atPath: home + "/.local/share/linphone", withIntermediateDirectories: true)
        } catch {
            throw SIPPeerError(.fileSystem, "cannot create \(home): \(error)")
        }
        let configuration = directory + "/linphonerc"
        try SIPPeerTemplate.renderFile(
            templates + "/linphone/linphonerc", to: configuration,
            values: ["SIP_PORT": String(port), "RTP_PORT": String(rtpPort), "USER": user, "MEDIA_ENCRYPTION": mediaEncryption])
        let pipe = Pipe()
        let process = try SIPPeerProcess(
            name: "linphonec", executable: "linphonec",
            arguments: ["-c", configuration, "-a", "-d", "6", "-l", directory + "/sip.log"], workingDirectory: directory,
            logPath: directory + "/linphonec.log", environment: ["HOME": home], input: pipe)
        self.port = port
        self.uri = "sip:\(user)@127.0.0.1:\(port)"
        self.process = process
        self.input = pipe.fileHandleForWriting
        self.directory = directory
        // The banner's last line comes as the SIP stack starts; it listens a moment later.
        let deadline = ContinuousClock.now + .seconds(10)
        while !process.log.contains("video is disabled") {
            guard process.isRunning, ContinuousClock.now < deadline else {
                stop()
                throw SIPPeerError(.notReady, "linphonec did not start; log:\n\(process.logTail())")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        Thread.sleep(forTimeInterval: 0.3)
    }

    /// Sends one command line (`transfer sip:carol@127.0.0.1:5062`).
    public func command(_ line: String) throws(SIPPeerError) {
        guard !line.contains("\n") else { throw SIPPeerError(.invalidValue, "a command is one line") }
        do { try input.write(contentsOf: Data((line + "\n").utf8)) } catch {
            throw SIPPeerError(.launchFailed, "linphonec's input is closed: \(error)")
        }
    }

    /// What linphonec printed so far.
    public var log: String { process.log }

    /// Its SIP trace (`-d 6`), for failure messages.
    public var sipTrace: String { (try? String(contentsOfFile: directory + "/sip.log", encoding: .utf8)) ?? "" }

    /// Waits until linphonec has printed `text`.
    public func waitFor(_ text: String, timeout: Duration = .seconds(10)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if process.log.contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return process.log.contains(text)
    }

    /// The last lines it printed.
    public var logTail: String { process.logTail(lines: 30) }

    /// Quits (`quit`: a closed input would make it spin), then stops what is left, and removes
    /// its directory.
    public func stop() {
        try? command("quit")
        let deadline = ContinuousClock.now + .seconds(2)
        while process.isRunning, !SIPPeerProcess.hasExited(process.pid), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        process.stop()
        try? input.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}
