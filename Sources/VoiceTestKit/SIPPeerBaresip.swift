import VoiceRTP
import Foundation
import VoiceMedia

/// How a ``BaresipPeer`` is configured.
public struct BaresipConfiguration: Hashable, Sendable {
    /// The account's user part (`sip:<user>@127.0.0.1:<port>`).
    public var user: String = "bob"
    /// The SIP port (UDP and TCP); 0 picks a free one.
    public var sipPort: Int = 0
    /// Answer incoming calls automatically (`answermode=auto`); otherwise they ring.
    public var autoAnswer: Bool = true
    /// `mediaenc`: `srtp-mand` (SDES, RTP/SAVP, SRTP required), `srtp` (optional), `dtls_srtp`
    /// (DTLS-SRTP, `UDP/TLS/RTP/SAVPF`; loads the `dtls_srtp` module), or nil for plain RTP.
    public var mediaEncryption: String? = "srtp-mand"
    /// `medianat`: `ice` (loads the `ice` module and turns rtcp-mux on, as WebRTC peers need), or
    /// nil for none.
    public var mediaNAT: String? = nil
    /// `audio_codecs`, in order of preference.
    public var audioCodecs: [String] = ["opus/48000/2", "PCMU/8000/1"]
    /// A WAV file sent as the call's audio (`aufile`, played once, then silence); nil sends a
    /// 440 Hz tone (`ausine`). baresip 1.0.0 refuses a file whose rate and channel count differ
    /// from the codec's (48 kHz stereo for Opus; see ``BaresipWAVFile/write(_:to:)``) and then
    /// sends no audio at all.
    public var audioFile: String? = nil
    /// When set, both directions of every call are recorded as WAV files in this directory
    /// (`sndfile` module: `dump-<time>-enc.wav` sent, `dump-<time>-dec.wav` received).
    public var recordingDirectory: String? = nil
    /// A registrar to register with (`sip:127.0.0.1:5060`); nil registers nowhere. The account's
    /// domain becomes the registrar's host and port.
    public var registrar: String? = nil
    /// The digest password for the registrar.
    public var password: String? = nil
    /// The `ctrl_tcp` control port on 127.0.0.1; 0 picks a free one.
    public var controlPort: Int = 0
    /// Run with `-s`: every SIP message sent and received goes to the log.
    public var sipTrace: Bool = false
    /// `call_max_calls`: calls at once.
    public var maxCalls: Int = 4
    /// `opus_bitrate`, bits per second.
    public var opusBitrate: Int = 32_000
    /// `opus_complexity` (0–10); nil leaves baresip's default (10).
    public var opusComplexity: Int? = nil
    /// `opus_application`: `voip` or `audio`; nil leaves baresip's default (`audio`, which codes
    /// 64 kbps speech with CELT alone, where `voip` — what this SDK uses — codes it with SILK).
    public var opusApplication: String? = nil
    /// `opus_stereo` and `opus_sprop_stereo`: whether the peer asks for and sends stereo. nil
    /// leaves baresip's default (yes: its encoder then codes its two-channel audio as stereo at
    /// the usual bitrates); false makes both ends of a call between two baresips code mono.
    public var opusStereo: Bool? = nil
    /// `opus_inbandfec`: whether the peer asks for in-band FEC (`useinbandfec=1` in its SDP) and
    /// codes it when the other side asks; nil leaves baresip's default (no).
    public var opusInbandFEC: Bool? = nil
    /// `opus_packet_loss`, percent: the loss hint its encoder gets, and, above 0, what makes its
    /// decoder recover a lost packet from the next one's FEC (baresip 1.0 decodes FEC only then);
    /// nil leaves baresip's default (none).
    public var opusPacketLoss: Int? = nil
    /// RTP ports reserved for the peer (two per call is plenty with rtcp-mux).
    public var rtpPortCount: Int = 20

    /// The defaults: user `bob`, a free port, auto-answer, SRTP required, Opus then PCMU.
    public init() {}
}

/// baresip 1.0.0 running on 127.0.0.1 with its configuration written from a template.
///
/// No sound card is needed: audio comes from a tone or a WAV file, no player module is loaded.
/// Thread-safe.
public final class BaresipPeer: Sendable {
    /// The configuration the peer runs with (ports resolved).
    public let configuration: BaresipConfiguration
    /// The directory holding `config`, `accounts` and `baresip.log`.
    public let directory: String
    /// The SIP UDP address.
    package let sipAddress: SocketAddress
    /// The account URI, e.g. `sip:bob@127.0.0.1:5062`.
    public let uri: String
    /// The running process.
    package let process: SIPPeerProcess
    /// The `ctrl_tcp` connection, made as soon as baresip is ready so no event is missed:
    /// dial, accept, hang up, hold, resume, DTMF, and the call events.
    package let control: BaresipControl

    /// Writes the configuration from the templates in `templateDirectory` (`config`, `accounts`),
    /// starts `baresip -f <dir>`, waits until it answers OPTIONS and connects ``control``.
    /// - Parameters:
    ///   - templateDirectory: The directory with the `config` and `accounts` templates.
    ///   - configuration: Ports, account, media settings.
    ///   - executable: The binary, `baresip` on `PATH` by default.
    ///   - readyTimeout: How long to wait for the OPTIONS answer.
    public init(
        templateDirectory: String? = PeerTemplates.baresip, configuration: BaresipConfiguration = BaresipConfiguration(),
        executable: String = "baresip", readyTimeout: Duration = .seconds(10)
    ) throws(SIPPeerError) {
        guard let templateDirectory else {
            throw SIPPeerError(.invalidTemplate, "no baresip templates: VoiceTestKit's resource bundle is missing")
        }
        var config = configuration
        if config.sipPort == 0 { config.sipPort = try SIPPeerProcess.freePort() }
        if config.controlPort == 0 {
            repeat { config.controlPort = try SIPPeerProcess.freePort() } while config.controlPort == config.sipPort
        }
        try SIPPeerTemplate.validate(config.user, as: "user")
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "baresip")
        let domain: String
        if let registrar = config.registrar {
            try SIPPeerTemplate.validate(registrar, as: "registrar")
            domain = registrar.hasPrefix("sip:") ? String(registrar.dropFirst(4)) : registrar
        } else {
            domain = "127.0.0.1:\(config.sipPort)"
        }
        var account = "<sip:\(config.user)@\(domain)>"
        if let password = config.password {
            try SIPPeerTemplate.validate(password, as: "password")
            account += ";auth_pass=\(password)"
        }
        account += config.registrar == nil ? ";regint=0" : ";regint=60"
        account += config.autoAnswer ? ";answermode=auto" : ";answermode=manual"
        if let encryption = config.mediaEncryption {
            try SIPPeerTemplate.validate(encryption, as: "media encryption")
            account += ";mediaenc=\(encryption)"
        }
        var webRTCModules = "# no dtls_srtp, no ice"
        if config.mediaEncryption == "dtls_srtp" { webRTCModules = "module\t\t\tdtls_srtp.so" }
        if let nat = config.mediaNAT {
            guard nat == "ice" else { throw SIPPeerError(.invalidValue, "medianat \(nat): only ice") }
            account += ";medianat=ice"
            // rtcp-mux: an account parameter does nothing in baresip 1.0; the config line does.
            webRTCModules += "\nmodule\t\t\tice.so\nrtcp_mux\t\tyes"
        }
        for codec in config.audioCodecs { try SIPPeerTemplate.validate(codec, as: "codec") }
        if let application = config.opusApplication, application != "voip", application != "audio" {
            throw SIPPeerError(.invalidValue, "opus application \(application): voip or audio")
        }
        account += ";audio_codecs=" + config.audioCodecs.joined(separator: ",")
        let source: String
        if let file = config.audioFile {
            try SIPPeerTemplate.validate(file, as: "audio file")
            source = "aufile,\(file)"
        } else {
            source = "ausine,440"
        }
        if let recording = config.recordingDirectory { try SIPPeerTemplate.validate(recording, as: "recording directory") }
        let rtp = try SIPPeerProcess.freeUDPPortRange(count: max(4, config.rtpPortCount))
        var stereoLines = "# opus_stereo: baresip's default"
        if let stereo = config.opusStereo {
            let value = stereo ? "yes" : "no"
            stereoLines = "opus_stereo\t\t\(value)\nopus_sprop_stereo\t\(value)"
        }
        var lossLines = "# opus_inbandfec: baresip's default"
        if let fec = config.opusInbandFEC { lossLines = "opus_inbandfec\t\t" + (fec ? "yes" : "no") }
        if let loss = config.opusPacketLoss {
            lossLines += "\nopus_packet_loss\t" + String(min(100, max(0, loss)))
        } else {
            lossLines += "\n# opus_packet_loss: baresip's default"
        }
        let values = [
            "SIP_PORT": String(config.sipPort),
            "AUDIO_SOURCE": source,
            "RTP_PORTS": "\(rtp.lowerBound)-\(rtp.upperBound)",
            "RECORDING_MODULE": config.recordingDirectory == nil ? "# no recording" : "module\t\t\tsndfile.so",
            "RECORDING_DIR": config.recordingDirectory ?? directory,
            "ACCOUNT": account,
            "CONTROL_PORT": String(config.controlPort),
            "MAX_CALLS": String(max(1, config.maxCalls)),
            "OPUS_BITRATE": String(config.opusBitrate),
            "OPUS_COMPLEXITY": config.opusComplexity.map { "opus_complexity\t\t\(min(10, max(0, $0)))" } ?? "# opus_complexity: baresip's default",
            "OPUS_APPLICATION": config.opusApplication.map { "opus_application\t\($0)" } ?? "# opus_application: baresip's default",
            "OPUS_STEREO": stereoLines,
            "OPUS_LOSS": lossLines,
            "WEBRTC_MODULES": webRTCModules,
        ]
        try SIPPeerTemplate.renderFile(templateDirectory + "/config", to: directory + "/config", values: values)
        try SIPPeerTemplate.renderFile(templateDirectory + "/accounts", to: directory + "/accounts", values: values)
        let address: SocketAddress
        do { address = try SocketAddress(host: "127.0.0.1", port: config.sipPort) } catch {
            throw SIPPeerError(.socket, "\(error)")
        }
        let uri = "sip:\(config.user)@127.0.0.1:\(config.sipPort)"
        let process = try SIPPeerProcess.launchReady(
            name: "baresip", executable: executable, arguments: ["-f", directory] + (config.sipTrace ? ["-s"] : []),
            workingDirectory: directory, logPath: directory + "/baresip.log",
            readyAt: address, requestURI: uri, timeout: readyTimeout)
        let control: BaresipControl
        do {
            control = try BaresipControl(port: config.controlPort, connectTimeout: .seconds(5))
        } catch {
            process.stop()
            try? FileManager.default.removeItem(atPath: directory)
            throw SIPPeerError(.notReady, "\(error); log:\n\(process.logTail())")
        }
        self.configuration = config
        self.directory = directory
        self.sipAddress = address
        self.uri = uri
        self.process = process
        self.control = control
    }

    /// Waits until the newest received-audio recording holds at least `duration` of audio,
    /// polling its size every 20 ms. `sndfile` writes the codec's format: 48 kHz stereo 16-bit
    /// for Opus (the default `bytesPerSecond`), 16 kHz mono (32 000) for G.722, 8 kHz mono
    /// (16 000) for G.711.
    ///
    /// baresip 1.0.0 drops `sndfile` from the receive pipeline at a re-INVITE (hold, resume):
    /// wait here before one if the received audio matters.
    /// - Returns: False after `timeout`.
    public func waitForReceivedAudio(_ duration: Duration, timeout: Duration = .seconds(5), bytesPerSecond: Int = 48_000 * 4) -> Bool {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let wanted = 44 + Int(seconds * Double(bytesPerSecond))
        let deadline = ContinuousClock.now + timeout
        repeat {
            if let path = recordings.received.last,
                let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size >= wanted
            {
                return true
            }
            usleep(20_000)
        } while ContinuousClock.now < deadline
        return false
    }

    /// The files `sndfile` has written so far (empty without a ``BaresipConfiguration/recordingDirectory``).
    public var recordings: BaresipRecordings {
        guard let directory = configuration.recordingDirectory,
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory)
        else { return BaresipRecordings(sent: [], received: []) }
        let dumps = names.filter { $0.hasPrefix("dump-") }.sorted().map { directory + "/" + $0 }
        return BaresipRecordings(
            sent: dumps.filter { $0.hasSuffix("-enc.wav") }, received: dumps.filter { $0.hasSuffix("-dec.wav") })
    }

    /// The log so far (stdout and stderr).
    public var log: String { process.log }

    /// Stops baresip (SIGTERM, then SIGKILL) and removes its directory. Idempotent.
    public func stop() {
        control.close()
        process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}

/// The WAV files baresip's `sndfile` module wrote, oldest call first.
public struct BaresipRecordings: Hashable, Sendable {
    /// `dump-<time>-enc.wav`: the audio baresip sent (before encoding).
    public var sent: [String]
    /// `dump-<time>-dec.wav`: the audio baresip received (after decoding).
    public var received: [String]

    /// Creates a listing.
    public init(sent: [String], received: [String]) {
        self.sent = sent
        self.received = received
    }
}
