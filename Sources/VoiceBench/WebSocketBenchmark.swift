import VoiceEmbedded
import ArgumentParser
import Dispatch
import Foundation
import Histogram
import Logging
import NIOSSL
import VoiceCore
import VoiceMedia
import VoiceTestAudio
import VoiceSIP
import VoiceSIPAgent
import VoiceSupport
import VoiceTestKit

/// `call_setup_ms_p50_wss` beside `call_setup_ms_p50_kamailio_udp`: `connect()` to
/// `callDidConnect` through Kamailio on loopback (its WebSocket template: digest challenges,
/// record-routing), both clients registered over secure WebSocket (RFC 7118) in one run and over
/// UDP in the other, default media settings, one call at a time. And
/// `websocket_reregister_ms_p50`: a client registered over wss, Kamailio restarted on the same
/// ports (its registrations, in memory, gone), from the new proxy answering to the client
/// registered again over a new connection.
struct WebSocketBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "websocket",
        abstract: "Prints call_setup_ms_p50_wss and call_setup_ms_p50_kamailio_udp (through Kamailio, needs kamailio-websocket-modules) and websocket_reregister_ms_p50 after proxy restarts.")

    @Option(help: "Calls measured per transport.") var calls = 50
    @Option(help: "Proxy restarts measured.") var restarts = 5

    func run() throws {
        printFigures(try Self.figures(calls: calls, restarts: restarts))
    }

    static func figures(calls: Int, restarts: Int) throws -> [(String, String)] {
        guard KamailioPeer.hasWebSocketModules() else { throw BenchError("kamailio-websocket-modules is not installed: scripts/install-deps.sh") }
        let tls = try BenchCertificate()
        defer { tls.remove() }
        var configuration = KamailioConfiguration()
        configuration.users = ["caller": "callerpass", "callee": "calleepass"]
        configuration.tls = KamailioTLS(port: try SIPPeerProcess.freePort(), certificate: tls.certificate, privateKey: tls.key)
        configuration.secureWebSocketPort = try SIPPeerProcess.freePort()
        var kamailio = try KamailioPeer(templatePath: PeerTemplates.kamailioWebSocket, configuration: configuration)
        defer { kamailio.stop() }
        let secureURL = kamailio.secureWebSocketURL ?? ""
        let udp = try setup(calls: calls, proxy: kamailio.uri, kamailio: kamailio, tls: tls, name: "udp")
        let wss = try setup(calls: calls, proxy: secureURL, kamailio: kamailio, tls: tls, name: "wss")

        // Re-registration after restarts, seen by the user agent that does it.
        let events = Locked<[(MediaTime, SIPRegistrationEvent)]>([])
        let clock = MonotonicMediaClock()
        var proxy = SIPURI(scheme: .sips, host: "127.0.0.1", port: configuration.secureWebSocketPort)
        proxy.parameters.set("transport", "ws")
        var agentConfiguration = SIPUserAgentConfiguration(
            identity: SIPNameAddress(uri: SIPURI(user: "callee", host: configuration.realm)),
            credentials: [SIPAuthCredentials(username: "callee", password: "calleepass")], transport: .wss, outboundProxy: proxy)
        agentConfiguration.registrar = SIPURI(host: configuration.realm)
        agentConfiguration.transportConfiguration.tlsClient = tls.trustingClient
        let agent = try SIPUserAgent(configuration: agentConfiguration) { event in
            if case .registration(let registration) = event { events.withLock { $0.append((clock.now(), registration)) } }
        }
        defer { try? agent.shutdown().wait() }
        _ = try agent.start().wait()
        agent.register()
        func registeredCount() -> Int { events.withLock { $0.filter { if case .registered = $0.1 { true } else { false } }.count } }
        guard PollingWait.until(timeout: 10, { registeredCount() == 1 }) else { throw BenchError("the agent did not register over wss") }
        var reregister: [Double] = []
        for _ in 0..<restarts {
            let before = registeredCount()
            kamailio.stop()
            kamailio = try KamailioPeer(templatePath: PeerTemplates.kamailioWebSocket, configuration: kamailio.configuration)
            let ready = clock.now()
            guard PollingWait.until(timeout: 20, { registeredCount() > before }) else { throw BenchError("no re-registration after a restart") }
            let at = events.withLock { $0.last { if case .registered = $0.1 { true } else { false } }?.0 } ?? ready
            reregister.append(Double((at - ready).nanoseconds) / 1e6)
        }
        let sorted = reregister.sorted()
        let median = sorted.isEmpty ? Double.nan : sorted[sorted.count / 2]
        print(String(format: "websocket: re-registered over wss after %d proxy restarts: %@ ms after the proxy answered", restarts,
                     reregister.map { String(format: "%.0f", $0) }.joined(separator: ", ")))
        return [
            ("call_setup_ms_p50_kamailio_udp", String(format: "%.2f", udp)),
            ("call_setup_ms_p50_wss", String(format: "%.2f", wss)),
            ("websocket_reregister_ms_p50", String(format: "%.0f", median)),
        ]
    }

    /// The p50 of `calls` setups between two clients of `proxy` (a SIP URI or a wss:// URL).
    private static func setup(calls: Int, proxy: String, kamailio: KamailioPeer, tls: BenchCertificate, name: String) throws -> Double {
        var quiet = Logger(label: "voice-bench")
        quiet.logLevel = .error
        func client(_ user: String) throws -> VoiceClient {
            var configuration = VoiceClientConfiguration(
                identity: user, domain: kamailio.configuration.realm, outboundProxy: try SIPServerAddress(proxy), registers: true,
                username: user, password: user + "pass", logger: quiet)
            configuration.transportSettings.tlsClient = tls.trustingClient
            // The callee takes calls from the proxy only.
            configuration.incomingCallPolicy = SIPIncomingCallPolicy(trustedSources: ["127.0.0.1"])
            return try VoiceClient(configuration: configuration)
        }
        let callee = try client("callee"), caller = try client("caller")
        defer {
            caller.shutdown()
            callee.shutdown()
        }
        let tone = TestSignals.multiTone([(440, 8_000)], seconds: 1)
        SetupAnswerer(device: { BufferAudioDevice(captureSamples: tone, loop: true) }).listen(on: callee, as: "callee")
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        var failures = 0
        let clock = MonotonicMediaClock()
        for i in 0..<(calls + 5) {
            let delegate = SetupCallDelegate(clock: clock)
            let started = clock.now()
            let call = caller.connect(
                options: ConnectOptions(accessToken: BenchTokens.token("caller")) { builder in
                    builder.params = ["To": "callee"]
                    builder.delegateQueue = delegate.queue
                    builder.audioDevice = BufferAudioDevice(captureSamples: tone, loop: true)
                },
                delegate: delegate)
            if case .connected(let at)? = delegate.waitForOutcome(timeout: 10) {
                if i >= 5 { _ = histogram.record(UInt64(max(0, (at - started).nanoseconds / 1_000))) }
            } else if i >= 5 {
                failures += 1
            }
            call.disconnect()
            delegate.waitForEnd(timeout: 10)
        }
        let p50 = Double(histogram.valueAtPercentile(50)) / 1_000, p95 = Double(histogram.valueAtPercentile(95)) / 1_000
        print(String(format: "websocket: %@ through Kamailio: %d calls, connect() to callDidConnect p50 %.2f ms, p95 %.2f ms, %d failed",
                     name, calls, p50, p95, failures))
        flushOutput()
        guard failures == 0 else { throw BenchError("\(failures) of \(calls) calls over \(name) failed") }
        return p50
    }
}

/// A throw-away self-signed certificate for 127.0.0.1 (openssl), and a client configuration
/// that trusts it.
struct BenchCertificate {
    let directory: String
    var certificate: String { directory + "/cert.pem" }
    var key: String { directory + "/key.pem" }

    init() throws {
        directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "bench-tls")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", directory + "/key.pem", "-out", directory + "/cert.pem",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("openssl could not make a certificate") }
    }

    var trustingClient: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates((try? NIOSSLCertificate.fromPEMFile(certificate)) ?? [])
        return configuration
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
