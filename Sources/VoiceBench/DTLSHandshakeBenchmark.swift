import VoiceDTLS
import VoiceSupport

/// `dtls_handshake_ms_p50_memory`: the CPU cost of one DTLS-SRTP handshake, two associations
/// (each side's certificate made once, as a client makes its own) handing each other's
/// datagrams over in memory until both have SRTP keys. Each handshake has new associations, as
/// each call does; the time runs from the client's start to the keys on both sides (making the
/// associations, done at a stream's start, is not counted).
struct DTLSHandshakeBenchmark {
    var handshakes = 200
    /// Handshakes run first and not counted.
    var warmUp = 10

    struct Result {
        var p50Milliseconds: Double
        var p95Milliseconds: Double
        var datagrams: Int
    }

    func run() throws -> Result {
        let client = try DTLSCertificate.generate(commonName: "client")
        let server = try DTLSCertificate.generate(commonName: "server")
        let clock = MonotonicMediaClock()
        var times: [Double] = []
        var datagrams = 0
        for i in 0..<(warmUp + handshakes) {
            let a = try DTLSAssociation(certificate: client, role: .client, remoteFingerprints: [server.fingerprint])
            let b = try DTLSAssociation(certificate: server, role: .server, remoteFingerprints: [client.fingerprint])
            let started = clock.now()
            _ = b.start(now: started)
            let exchanged = try Self.handshake(a, b, now: started)
            if i >= warmUp {
                times.append((clock.now() - started).milliseconds)
                datagrams = exchanged
            }
        }
        times.sort()
        return Result(p50Milliseconds: times[times.count / 2], p95Milliseconds: times[times.count * 95 / 100], datagrams: datagrams)
    }

    /// Delivers every datagram from one side to the other until both have keys; the number of
    /// datagrams exchanged.
    private static func handshake(_ client: DTLSAssociation, _ server: DTLSAssociation, now: MediaTime) throws -> Int {
        var keyed = 0
        func datagrams(_ actions: [DTLSAction]) throws -> [[UInt8]] {
            var out: [[UInt8]] = []
            for action in actions {
                switch action {
                case .send(let bytes): out.append(bytes)
                case .connected: keyed += 1
                case .failed(let error): throw BenchError("DTLS handshake failed: \(error)")
                case .closed: throw BenchError("DTLS association closed during the handshake")
                }
            }
            return out
        }
        var sent = 0
        var toServer = try datagrams(client.start(now: now))
        while keyed < 2 {
            guard !toServer.isEmpty else { throw BenchError("DTLS handshake stalled after \(sent) datagrams") }
            let toClient = try datagrams(toServer.flatMap { server.receive($0, now: now) })
            sent += toServer.count
            toServer = try datagrams(toClient.flatMap { client.receive($0, now: now) })
            sent += toClient.count
        }
        return sent + toServer.count
    }
}
