import VoiceEmbedded
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import VoiceMedia
import VoiceSIP
import VoiceTestKit
import VoiceRTP
import VoiceSupport
import XCTest
import VoiceTestAudio
import VoiceMediaTypes

/// The `voicecall` command line, run as a user runs it: `listen` on one side, `call` with a WAV
/// file and digits on the other; what `listen` recorded must be what `call` played.
final class VoiceCallCommandTests: XCTestCase {
    private var cleanup: [() -> Void] = []

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
    }

    private func voicecall() throws -> String { try TestPrerequisites.voicecall() }

    /// The binary and a scratch directory removed after the test.
    private func workspace() throws -> (binary: String, directory: String) {
        let binary = try voicecall()
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "voicecall-cli")
        cleanup.append { try? FileManager.default.removeItem(atPath: directory) }
        return (binary, directory)
    }

    /// `voicecall listen` as bob, only bound (no REGISTER), auto-answering; ready once it answers OPTIONS.
    private func startListen(_ binary: String, in directory: String, extra: [String] = []) throws -> (SIPPeerProcess, Int) {
        let port = try SIPPeerProcess.freePort()
        let listen = try SIPPeerProcess.launchReady(
            name: "voicecall listen", executable: binary,
            arguments: ["listen", "--identity", "bob", "--port", "\(port)", "--no-register", "--auto-answer"] + extra,
            workingDirectory: directory, logPath: directory + "/listen.log",
            readyAt: try SocketAddress(host: "127.0.0.1", port: port), requestURI: "sip:bob@127.0.0.1:\(port)",
            timeout: .seconds(20))
        cleanup.append { listen.stop() }
        return (listen, port)
    }

    /// `voicecall call` from alice to the listener on `port`.
    private func startCall(_ binary: String, in directory: String, port: Int, extra: [String]) throws -> SIPPeerProcess {
        let call = try SIPPeerProcess(
            name: "voicecall call", executable: binary,
            arguments: ["call", "sip:bob@127.0.0.1:\(port)", "--identity", "alice"] + extra,
            workingDirectory: directory, logPath: directory + "/call.log")
        cleanup.append { call.stop() }
        return call
    }

    /// A caller whose From user decodes to CR LF ESC must not forge or colour a line of the
    /// listener's output: what the peer sent is shown escaped.
    func testAPeersControlCharactersAreShownEscapedNotObeyed() throws {
        let (binary, directory) = try workspace()
        let (listen, port) = try startListen(binary, in: directory, extra: ["--once"])
        let channel = try SIPPeerUDPChannel()
        cleanup.append { channel.close() }
        var negotiation = SDPOfferAnswer(capabilities: SDPLocalCapabilities(address: "127.0.0.1", port: 40_000))
        let sdp = try negotiation.makeOffer().text
        let local = channel.localAddress.port
        let invite = """
            INVITE sip:bob@127.0.0.1:\(port) SIP/2.0\r
            Via: SIP/2.0/UDP 127.0.0.1:\(local);branch=z9hG4bKinjection1;rport\r
            Max-Forwards: 70\r
            From: <sip:evil%0d%0a%1b%5b31mFAKE-LOG-LINE@127.0.0.1:\(local)>;tag=inj1\r
            To: <sip:bob@127.0.0.1:\(port)>\r
            Call-ID: injection-test\r
            CSeq: 1 INVITE\r
            Contact: <sip:evil@127.0.0.1:\(local)>\r
            Content-Type: application/sdp\r
            Content-Length: \(sdp.utf8.count)\r
            \r
            \(sdp)
            """
        try channel.send(invite, to: SocketAddress(host: "127.0.0.1", port: port))
        XCTAssertTrue(PollingWait.until(timeout: 10) { listen.log.contains("incoming call from") }, listen.logTail())
        let log = listen.log
        XCTAssertTrue(log.contains("incoming call from evil\\u{d}\\u{a}\\u{1b}[31mFAKE-LOG-LINE"), log)
        XCTAssertFalse(log.contains("\u{1b}"), "no raw escape character reached the output")
        XCTAssertFalse(log.contains("\nFAKE-LOG-LINE"), "no forged line")
    }

    func testListenWithATrustedSourceRefusesEverybodyElse() throws {
        let (binary, directory) = try workspace()
        let (listen, port) = try startListen(binary, in: directory, extra: ["--once", "--trusted-source", "127.0.0.9"])
        let channel = try SIPPeerUDPChannel()
        cleanup.append { channel.close() }
        let local = channel.localAddress.port
        let invite = """
            INVITE sip:bob@127.0.0.1:\(port) SIP/2.0\r
            Via: SIP/2.0/UDP 127.0.0.1:\(local);branch=z9hG4bKstranger1;rport\r
            Max-Forwards: 70\r
            From: <sip:stranger@127.0.0.1:\(local)>;tag=s1\r
            To: <sip:bob@127.0.0.1:\(port)>\r
            Call-ID: trusted-source-test\r
            CSeq: 1 INVITE\r
            Contact: <sip:stranger@127.0.0.1:\(local)>\r
            Content-Length: 0\r
            \r

            """
        try channel.send(invite, to: SocketAddress(host: "127.0.0.1", port: port))
        let reply = channel.receive(timeout: .seconds(5)) { $0.hasPrefix("SIP/2.0 ") && !$0.hasPrefix("SIP/2.0 100") }
        XCTAssertTrue(reply?.hasPrefix("SIP/2.0 403") ?? false, reply ?? "no answer")
        XCTAssertFalse(listen.log.contains("incoming call"), listen.logTail())
    }

    func testCtrlCHangsTheCallUpWithABye() throws {
        let (binary, directory) = try workspace()
        let (listen, port) = try startListen(binary, in: directory, extra: ["--once", "--duration", "60"])
        let call = try startCall(binary, in: directory, port: port, extra: ["--duration", "60"])
        XCTAssertTrue(PollingWait.until(timeout: 20) { call.log.contains("connected") }, call.logTail())
        kill(call.pid, SIGINT)
        XCTAssertTrue(PollingWait.until(timeout: 10) { !call.isRunning }, "call exits on Ctrl-C:\n\(call.logTail())")
        XCTAssertEqual(call.exitStatus, 0, call.logTail())
        XCTAssertTrue(PollingWait.until(timeout: 10) { !listen.isRunning }, "listen --once saw the BYE:\n\(listen.logTail())")
        XCTAssertEqual(listen.exitStatus, 0, listen.logTail())
        XCTAssertTrue(listen.log.contains("call: disconnected"), listen.log)
    }

    func testListenServesPrometheusMetricsThatMoveDuringACall() throws {
        let (binary, directory) = try workspace()
        let (listen, port) = try startListen(binary, in: directory, extra: ["--once", "--metrics-port", "0"])
        let announced = #/metrics on http://0\.0\.0\.0:(\d+)/metrics/#
        let metricsPort = try XCTUnwrap(listen.log.firstMatch(of: announced).flatMap { Int($0.output.1) }, listen.logTail())
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:\(metricsPort)/metrics"))
        func scrape() -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        func value(_ series: String, in text: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        XCTAssertEqual(value("voice_calls_active", in: scrape()) ?? 0, 0, "no call yet")

        let call = try startCall(binary, in: directory, port: port, extra: ["--duration", "4"])
        XCTAssertTrue(PollingWait.until(timeout: 20) { call.log.contains("connected") }, call.logTail())
        XCTAssertTrue(
            PollingWait.until(timeout: 10) { (value("voice_rtp_packets_received_total", in: scrape()) ?? 0) > 50 },
            scrape())
        let during = scrape()
        XCTAssertEqual(value("voice_calls_active", in: during), 1, during)
        XCTAssertEqual(value("voice_call_setups_total{direction=\"incoming\"}", in: during), 1, during)
        XCTAssertGreaterThan(value("voice_rtp_packets_sent_total", in: during) ?? 0, 50, during)
        XCTAssertTrue(during.contains("voice_mos"), during)
        XCTAssertTrue(PollingWait.until(timeout: 20) { !listen.isRunning }, listen.logTail())
        XCTAssertEqual(listen.exitStatus, 0, listen.logTail())
    }

    func testListenExitsWithAnErrorWhenTheRegistrarRefuses() throws {
        let (binary, directory) = try workspace()
        let registrar = try SIPPeerUDPChannel()
        let listen = try SIPPeerProcess(
            name: "voicecall listen", executable: binary,
            arguments: ["listen", "--identity", "bob", "--domain", "127.0.0.1",
                        "--registrar", "sip:127.0.0.1:\(registrar.localAddress.port)", "--duration", "30"],
            workingDirectory: directory, logPath: directory + "/listen.log")
        cleanup.append { listen.stop() }
        let register = try XCTUnwrap(registrar.receive(timeout: .seconds(20)) { $0.hasPrefix("REGISTER ") }, listen.logTail())
        // 403, echoing the request's Via, From, To, Call-ID and CSeq.
        let lines = register.components(separatedBy: "\r\n")
        let echoed = lines.filter { line in ["Via:", "From:", "To:", "Call-ID:", "CSeq:"].contains { line.hasPrefix($0) } }
        let via = try XCTUnwrap(echoed.first { $0.hasPrefix("Via:") })
        let port = try XCTUnwrap(via.split(separator: " ").dropFirst(2).first?.split(separator: ";").first?.split(separator: ":").last.flatMap { Int($0) })
        let response = (["SIP/2.0 403 Forbidden"] + echoed + ["Content-Length: 0", "", ""]).joined(separator: "\r\n")
        try registrar.send(response, to: SocketAddress(host: "127.0.0.1", port: port))
        XCTAssertTrue(PollingWait.until(timeout: 10) { !listen.isRunning }, listen.logTail())
        XCTAssertEqual(listen.exitStatus, 1, listen.logTail())
        XCTAssertTrue(listen.log.contains("registration failed"), listen.log)
    }

    /// Against a plain SIP registrar that asks for digest credentials, `listen` needs no token:
    /// it answers the challenge with `--password`, sends no Bearer credential, and prints the
    /// Contact it registered.
    func testListenRegistersWithoutATokenAndPrintsItsContact() throws {
        let (binary, directory) = try workspace()
        let registrar = try SIPStubServer()
        let port = try SIPPeerProcess.freePort()
        let listen = try SIPPeerProcess(
            name: "voicecall listen", executable: binary,
            arguments: ["listen", "--identity", "bob", "--domain", "127.0.0.1", "--port", "\(port)",
                        "--registrar", registrar.hostPort, "--password", "bobpass", "--duration", "30"],
            workingDirectory: directory, logPath: directory + "/listen.log")
        cleanup.append { listen.stop() }
        let first = try registrar.nextRequest(.register, timeout: .seconds(20))
        XCTAssertNil(first.headers.first("Authorization"), listen.logTail())
        try registrar.reply(first, 401, headers: [("WWW-Authenticate", #"Digest realm="127.0.0.1", nonce="n1", algorithm=MD5"#)])
        let second = try registrar.nextRequest(.register, after: try first.headers.cseq().sequence)
        let authorization = try XCTUnwrap(second.headers.first("Authorization"))
        XCTAssertTrue(authorization.hasPrefix("Digest ") && authorization.contains(#"username="bob""#), authorization)
        try registrar.acceptRegistration(second)
        XCTAssertTrue(PollingWait.until(timeout: 10) { listen.log.contains("listening on") }, listen.logTail())
        XCTAssertTrue(listen.log.contains("contact sip:bob@127.0.0.1:\(port)"), listen.log)
        XCTAssertFalse(listen.log.contains("registration failed"), listen.log)
    }

    /// A server address that cannot work is refused when the options are read, naming the option.
    func testABadServerAddressIsRefusedBeforeAnythingIsSent() throws {
        let (binary, directory) = try workspace()
        for (option, value) in [
            ("--proxy", "127.0.0.1:0"), ("--registrar", "sip:bob@127.0.0.1"), ("--stun", "stun.example.com:70000"),
            ("--name-server", "dns.example.com"),
        ] {
            let listen = try SIPPeerProcess(
                name: "voicecall listen", executable: binary, arguments: ["listen", "--no-register", option, value],
                workingDirectory: directory, logPath: directory + "/listen-\(option.dropFirst(2)).log")
            cleanup.append { listen.stop() }
            XCTAssertTrue(PollingWait.until(timeout: 10) { !listen.isRunning }, listen.logTail())
            XCTAssertNotEqual(listen.exitStatus, 0, listen.logTail())
            XCTAssertTrue(listen.log.contains("\(option): "), listen.log)
            XCTAssertFalse(listen.log.contains("listening on"), listen.log)
        }
    }

    func testListenRecordsWhatCallPlaysAndBothExitCleanly() throws {
        let (binary, directory) = try workspace()
        let signal = TestSignals.speechLike(seconds: 2)
        try WAVFile(sampleRate: 48_000, channels: 1, samples: signal).write(toFile: directory + "/play.wav")
        try WAVFile(sampleRate: 48_000, channels: 1, samples: TestSignals.multiTone([(900, 6_000)], seconds: 2)).write(toFile: directory + "/bob.wav")
        let (listen, port) = try startListen(
            binary, in: directory, extra: ["--record", directory + "/recorded.wav", "--play", directory + "/bob.wav", "--duration", "30", "--once"])
        let call = try startCall(
            binary, in: directory, port: port,
            extra: [
                "--play", directory + "/play.wav", "--duration", "4", "--digits", "12#", "--param", "order=7",
                "--record-both", directory + "/both.wav",
            ])
        XCTAssertTrue(PollingWait.until(timeout: 30) { !call.isRunning }, "call did not end:\n\(call.logTail())")
        XCTAssertEqual(call.exitStatus, 0, call.logTail())
        XCTAssertTrue(call.log.contains("connected"), call.logTail())
        let listenLog = listen.log
        XCTAssertTrue(listenLog.contains("incoming call from alice"), listenLog)
        XCTAssertTrue(listenLog.contains("\"order\": \"7\""), "custom parameter arrived:\n\(listenLog)")
        let printedDigits = listenLog.split(separator: "\n").filter { $0.contains(": digit ") }
        XCTAssertEqual(printedDigits.count, 3, "listen prints each digit the caller pressed, once:\n\(listenLog)")
        for (line, digit) in zip(printedDigits, ["1", "2", "#"]) { XCTAssertTrue(line.contains(": digit \(digit) ("), "\(line)") }
        XCTAssertTrue(PollingWait.until(timeout: 10) { !listen.isRunning }, "listen --once exits after the call")
        XCTAssertEqual(listen.exitStatus, 0, listen.logTail())
        let recorded = try WAVFile(contentsOfFile: directory + "/recorded.wav")
        XCTAssertGreaterThan(recorded.samples.count, 48_000 * 2, "at least 2 s recorded")
        // Window by window: two real-time processes on a loaded machine shift the recording's
        // timeline now and then, which one lag for the whole recording takes for broken audio.
        let alignment = SpectralSimilarity(playedInALoop: signal, in: recorded.channel(0))
        XCTAssertGreaterThan(alignment.score, 0.75, "recorded vs played: \(alignment)")
        // The caller's --record-both: what it sent on the left, what it heard (bob's tone) on the right.
        XCTAssertTrue(call.log.contains("recorded "), call.logTail())
        let both = try WAVFile(contentsOfFile: directory + "/both.wav")
        XCTAssertEqual(both.channels, 2)
        XCTAssertGreaterThan(both.samples.count / 2, 48_000 * 3, "the whole call")
        let sent = SpectralSimilarity(playedInALoop: signal, in: both.channel(0))
        XCTAssertGreaterThan(sent.score, 0.9, "left: what the caller sent: \(sent)")
        XCTAssertLessThan(ToneAmplitude.of(900, in: both.channel(0)), 100)
        XCTAssertGreaterThan(ToneAmplitude.of(900, in: both.channel(1).suffix(96_000)), 3_000, "right: what it heard")
    }

    /// `voicecall conference` hosts a room; two `voicecall call conference:standup` (the server
    /// as their proxy) each hear the other's tone and not their own; the host prints the events.
    func testConferenceHostsARoomTwoCallersHearEachOther() throws {
        let (binary, directory) = try workspace()
        let port = try SIPPeerProcess.freePort()
        let host = try SIPPeerProcess.launchReady(
            name: "voicecall conference", executable: binary,
            arguments: [
                "conference", "--identity", "rooms", "--port", "\(port)", "--no-register", "--duration", "60",
                "--record-both", directory + "/mix.opus",
            ],
            workingDirectory: directory, logPath: directory + "/conference.log",
            readyAt: try SocketAddress(host: "127.0.0.1", port: port), requestURI: "sip:rooms@127.0.0.1:\(port)",
            timeout: .seconds(20))
        cleanup.append { host.stop() }
        var calls: [(SIPPeerProcess, String)] = []
        for (name, frequency) in [("alice", 500.0), ("bob", 700.0)] {
            try WAVFile(sampleRate: 48_000, channels: 1, samples: TestSignals.multiTone([(frequency, 6_000)], seconds: 8))
                .write(toFile: directory + "/\(name).wav")
            let call = try SIPPeerProcess(
                name: "voicecall call \(name)", executable: binary,
                arguments: [
                    "call", "conference:standup", "--identity", name, "--proxy", "127.0.0.1:\(port)",
                    "--play", directory + "/\(name).wav", "--record", directory + "/\(name)-heard.wav", "--duration", "4",
                ],
                workingDirectory: directory, logPath: directory + "/\(name).log")
            cleanup.append { call.stop() }
            calls.append((call, name))
        }
        for (call, name) in calls {
            XCTAssertTrue(PollingWait.until(timeout: 30) { !call.isRunning }, "\(name) did not end:\n\(call.logTail())")
            XCTAssertEqual(call.exitStatus, 0, call.logTail())
        }
        let alice = try WAVFile(contentsOfFile: directory + "/alice-heard.wav").channel(0).suffix(96_000)
        let bob = try WAVFile(contentsOfFile: directory + "/bob-heard.wav").channel(0).suffix(96_000)
        XCTAssertGreaterThan(ToneAmplitude.of(700, in: alice), 3_000, "alice hears bob")
        XCTAssertLessThan(ToneAmplitude.of(500, in: alice), 150, "alice does not hear herself")
        XCTAssertGreaterThan(ToneAmplitude.of(500, in: bob), 3_000, "bob hears alice")
        XCTAssertLessThan(ToneAmplitude.of(700, in: bob), 150, "bob does not hear himself")
        XCTAssertTrue(PollingWait.until(timeout: 5) { host.log.contains("room standup ended") }, host.logTail())
        for line in ["room standup open", "alice@standup joined", "bob@standup joined", "alice@standup left", "bob@standup left"] {
            XCTAssertTrue(host.log.contains(line), "\(line):\n\(host.logTail())")
        }
        // --record-both: the room's mix, both callers, as Ogg Opus (checked by its headers and
        // size here; AudioRecordingTests decodes one).
        XCTAssertTrue(PollingWait.until(timeout: 5) { host.log.contains("room standup recorded") }, host.logTail())
        let mix = try XCTUnwrap(FileManager.default.contents(atPath: directory + "/mix-standup.opus"))
        XCTAssertEqual(Array(mix.prefix(4)), Array("OggS".utf8))
        XCTAssertTrue(mix.range(of: Data("OpusHead".utf8)) != nil)
        XCTAssertGreaterThan(mix.count, 10_000, "seconds of audio")
    }

    func testProcessingFlagsReachTheCallsDevice() throws {
        let (binary, directory) = try workspace()
        try WAVFile(sampleRate: 48_000, channels: 1, samples: TestSignals.speechLike(seconds: 2)).write(toFile: directory + "/play.wav")
        let (listen, port) = try startListen(binary, in: directory, extra: ["--duration", "30"])
        defer { listen.stop() }
        // A file device is untouched unless asked: --process turns everything on, --no-* take stages off.
        let call = try startCall(
            binary, in: directory, port: port, extra: ["--play", directory + "/play.wav", "--duration", "3", "--process", "--no-aec", "--no-hpf"])
        XCTAssertTrue(PollingWait.until(timeout: 30) { !call.isRunning }, "call did not end:\n\(call.logTail())")
        XCTAssertEqual(call.exitStatus, 0, call.logTail())
        // --play alone makes a device that cannot play: echo cancellation could not run anyway.
        XCTAssertTrue(call.log.contains("processing: ns agc"), call.logTail())
        XCTAssertFalse(call.log.contains("processing: aec"), call.logTail())
        XCTAssertFalse(call.log.contains("no playback side"), "no echo cancellation was asked for\n\(call.logTail())")
        let plain = try startCall(binary, in: directory, port: port, extra: ["--play", directory + "/play.wav", "--duration", "2"])
        XCTAssertTrue(PollingWait.until(timeout: 30) { !plain.isRunning }, "call did not end:\n\(plain.logTail())")
        XCTAssertFalse(plain.log.contains("processing:"), "no flag: the file is sent untouched\n\(plain.logTail())")
    }
}
