import Foundation

/// pjsip as a SIP peer (PyPI `pjsua2-python`, the template's `pjsua2/peer.py`): one account on
/// 127.0.0.1 over UDP with a null sound device, SDES-SRTP (RTP/SAVP) as the SDK offers it. It answers every call, or
/// places one to ``Options/call``, and once the call is confirmed runs ``Options/script`` (see
/// ``Step``). What happens is read from the lines it prints (``lines``, ``digits``).
public final class PJSUAPeer: Sendable {
    /// One thing the peer does once its call is confirmed.
    public enum Step: Sendable, Hashable, CustomStringConvertible {
        /// Presses the digits as RFC 4733 telephone-events (`Call.dialDtmf`).
        case rfc4733(String)
        /// Presses the digits as SIP INFO `application/dtmf-relay`, one request each.
        case info(String)
        /// Waits.
        case sleep(Double)
        /// Hangs up.
        case hangUp
        /// Transfers the call to a SIP URI (REFER, `Call.xfer`); the URI must not contain a comma.
        case transfer(String)
        /// Places a second call to a SIP URI and waits until it is confirmed.
        case consult(String)
        /// Transfers the first call to the second call's peer (attended, `Call.xferReplaces`).
        case transferReplacing

        public var description: String {
            switch self {
            case .rfc4733(let digits): "rtp=\(digits)"
            case .info(let digits): "info=\(digits)"
            case .sleep(let seconds): "sleep=\(seconds)"
            case .hangUp: "hangup"
            case .transfer(let uri): "xfer=\(uri)"
            case .consult(let uri): "consult=\(uri)"
            case .transferReplacing: "xferreplaces"
            }
        }
    }

    public struct Options: Sendable {
        /// The SIP UDP port on 127.0.0.1 (RTP uses the ports from two above it).
        public var port: Int
        /// A SIP URI to call; nil: wait for a call and answer it.
        public var call: String?
        public var script: [Step] = []
        /// How long the peer runs at most.
        public var exitAfter: Double = 30
        /// pjsua's RFC 4028 session-timer mode (`inactive`, `optional`, `required`, `always`);
        /// nil: pjsua's default (optional at 1800 s).
        public var sessionTimer: String?
        /// The session interval pjsua asks for, with ``sessionTimer`` (at least 90).
        public var sessionExpires = 1_800
        /// pjsua's RFC 3262 100rel mode (`optional`, `required`); nil: pjsua's default (not used).
        public var prack: String?
        /// Answer a call with 180 first and 200 this many seconds later; 0: 200 at once.
        public var ring: Double = 0
        /// The provisional status of that answer: 180, or 183 (with SDP: early media).
        public var ringStatus = 180
        /// A steady tone (Hz) pjsua plays into every call once its media is up; 0: silence.
        public var tone = 0

        public init(
            port: Int, call: String? = nil, script: [Step] = [], exitAfter: Double = 30, sessionTimer: String? = nil,
            sessionExpires: Int = 1_800, prack: String? = nil, ring: Double = 0, ringStatus: Int = 180, tone: Int = 0
        ) {
            self.tone = tone
            self.prack = prack
            self.ringStatus = ringStatus
            self.ring = ring
            self.port = port
            self.call = call
            self.script = script
            self.exitAfter = exitAfter
            self.sessionTimer = sessionTimer
            self.sessionExpires = sessionExpires
        }
    }

    /// A digit the peer received: its key and how it came (`rfc2833` or `info`).
    public struct ReceivedDigit: Sendable, Hashable {
        public var digit: Character
        public var method: String
        public init(digit: Character, method: String) {
            self.digit = digit
            self.method = method
        }
    }

    private let process: SIPPeerProcess
    public let options: Options

    /// Whether `python3` can import pjsua2.
    public static var isInstalled: Bool { PythonModule.isImportable("pjsua2") }

    /// Starts the peer and waits until it is listening.
    public init(_ options: Options, templateDirectory: String? = PeerTemplates.directory) throws(SIPPeerError) {
        guard let templateDirectory else { throw SIPPeerError(.fileSystem, "the peer templates are missing") }
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "pjsua2")
        var arguments = [templateDirectory + "/pjsua2/peer.py", "--port", "\(options.port)", "--exit-after", "\(options.exitAfter)"]
        if let call = options.call { arguments += ["--call", call] }
        if !options.script.isEmpty { arguments += ["--script", options.script.map(\.description).joined(separator: ",")] }
        if let mode = options.sessionTimer {
            arguments += ["--timer", mode, "--session-expires", "\(options.sessionExpires)"]
        }
        if let mode = options.prack { arguments += ["--prack", mode] }
        if options.tone > 0 { arguments += ["--tone", "\(options.tone)"] }
        if options.ring > 0 { arguments += ["--ring", "\(options.ring)", "--ring-status", "\(options.ringStatus)"] }
        process = try SIPPeerProcess(
            name: "pjsua2", executable: "python3", arguments: arguments, workingDirectory: directory,
            logPath: directory + "/pjsua2.log")
        self.options = options
        guard waitForLine("READY", timeout: 10) else {
            process.stop()
            throw SIPPeerError(.notReady, "pjsua2 did not start; log:\n\(process.logTail())")
        }
    }

    deinit { process.stop() }

    /// The event lines it printed so far (`CONFIRMED`, `DIGIT 5 info 160`, …).
    public var lines: [String] {
        let events = ["READY", "INCOMING", "ANSWERED", "CONFIRMED", "XFER", "REPLACED", "SENT", "DIGIT", "TSX", "DISCONNECTED", "EXIT"]
        return process.log.split(separator: "\n").map(String.init).filter { line in
            events.contains { line == $0 || line.hasPrefix($0 + " ") }
        }
    }

    /// The digits it received, in order.
    public var digits: [ReceivedDigit] {
        lines.compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count >= 3, parts[0] == "DIGIT", let digit = parts[1].first else { return nil }
            return ReceivedDigit(digit: digit, method: String(parts[2]))
        }
    }

    /// Waits until a line equal to `line` or starting with it has been printed.
    public func waitForLine(_ line: String, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if lines.contains(where: { $0 == line || $0.hasPrefix(line + " ") }) { return true }
            if !process.isRunning { return lines.contains { $0 == line || $0.hasPrefix(line + " ") } }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// The last lines of its log, for failure messages.
    public var logTail: String { process.logTail(lines: 40) }

    public func stop() { process.stop() }
}
