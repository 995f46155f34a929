#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import Logging
import VoiceCore
import VoiceSIPAgent
import VoiceSupport
import VoiceTestAudio
import VoiceTestKit

/// `failover_call_setup_ms_p50`: from `connect()` to `callDidConnect` when the destination's
/// highest-priority SRV target is dead, beside the same call when it is alive. dnsmasq on
/// loopback publishes, under `example.test`, `alive` (the callee at priority 10) and `dead`
/// (a dead server at priority 10, the callee at 20). Each call is a fresh client's first
/// (default settings, the system's DNS replaced by dnsmasq), so it looks the names up and has
/// no server pinned from an earlier call.
///
/// - UDP: the dead server is a socket that reads and never answers (a hung process), so the
///   client's failover timeout (4 s) dominates.
/// - TCP: nobody listens at the dead server's port, so the refusal dominates.
struct FailoverBenchmark {
    var calls = 5

    struct Figures {
        var aliveMilliseconds: Double
        var deadMilliseconds: Double
        var failures: Int
    }

    func run(transport: SIPTransportProtocol) throws -> Figures {
        var quiet = Logger(label: "voice-bench")
        quiet.logLevel = .error
        var calleeConfiguration = VoiceClientConfiguration(
            identity: "callee", domain: "example.test", transport: transport, registers: false, logger: quiet)
        calleeConfiguration.incomingCallPolicy = SIPIncomingCallPolicy(trustedSources: ["127.0.0.1"])
        calleeConfiguration.mediaSecurity = .sdes
        let callee = try VoiceClient(configuration: calleeConfiguration)
        defer { callee.shutdown() }
        let tone = TestSignals.multiTone([(440, 8_000)], seconds: 1)
        let answerer = SetupAnswerer(device: { BufferAudioDevice(captureSamples: tone, loop: true) })
        answerer.listen(on: callee, as: "callee")

        // The dead server: over UDP a socket nobody answers from, over TCP a port nobody has.
        let hung = try HungUDPSocket()
        defer { hung.close() }
        let deadPort = transport == .udp ? hung.port : try SIPPeerProcess.freePort()
        let service = transport == .udp ? "_sip._udp" : "_sip._tcp"
        let calleePort = callee.localEndpoint.port
        let dns = try DNSServerPeer(
            domain: "example.test",
            records: [
                .service("\(service).alive.example.test", target: "callee.example.test", port: calleePort, priority: 10, weight: 0),
                .service("\(service).dead.example.test", target: "gone.example.test", port: deadPort, priority: 10, weight: 0),
                .service("\(service).dead.example.test", target: "callee.example.test", port: calleePort, priority: 20, weight: 0),
                .host("callee.example.test", address: "127.0.0.1"), .host("gone.example.test", address: "127.0.0.1"),
            ])
        defer { dns.stop() }

        let clock = MonotonicMediaClock()
        var failures = 0
        func setup(_ domain: String) throws -> Double? {
            var configuration = VoiceClientConfiguration(
                identity: "caller", domain: "example.test", transport: transport, registers: false, logger: quiet)
            configuration.mediaSecurity = .sdesOverUnencryptedSignaling
            configuration.nameServers = [dns.nameServer]
            let caller = try VoiceClient(configuration: configuration)
            defer { caller.shutdown() }
            let delegate = SetupCallDelegate(clock: clock)
            let suffix = transport == .tcp ? ";transport=tcp" : ""
            let options = ConnectOptions(accessToken: BenchTokens.token("caller")) { builder in
                builder.params = ["To": "sip:callee@\(domain)\(suffix)"]
                builder.delegateQueue = delegate.queue
                builder.audioDevice = BufferAudioDevice(captureSamples: tone, loop: true)
            }
            let started = clock.now()
            let call = caller.connect(options: options, delegate: delegate)
            let outcome = delegate.waitForOutcome(timeout: 15)
            call.disconnect()
            delegate.waitForEnd(timeout: 10)
            guard case .connected(let at)? = outcome else {
                failures += 1
                return nil
            }
            return Double((at - started).nanoseconds) / 1e6
        }
        var alive: [Double] = []
        var dead: [Double] = []
        for _ in 0..<calls {
            if let ms = try setup("alive.example.test") { alive.append(ms) }
            if let ms = try setup("dead.example.test") { dead.append(ms) }
        }
        func median(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.sorted()[values.count / 2] }
        return Figures(aliveMilliseconds: median(alive), deadMilliseconds: median(dead), failures: failures)
    }
}

/// A UDP socket on loopback that takes datagrams and never answers: a server that hangs.
final class HungUDPSocket {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard descriptor >= 0, bound == 0, named == 0 else { throw SIPPeerError(.socket, "cannot bind a UDP socket") }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}
