import Foundation
import VoiceAddress
import VoiceDTLS
import VoiceEmbedded
import VoiceICE
import VoiceMediaPath
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
import VoiceTestAudio
import VoiceTestKit
import XCTest

@testable import VoiceMedia

/// Dual-stack media on real loopback sockets: a stream bound to `::` (one port that carries
/// IPv4 and IPv6) offers host candidates on 127.0.0.1 and ::1 with RFC 8421's interleaved
/// preferences, and ICE pairs within each family. A peer with one family connects over it; a
/// peer whose IPv6 path is a black hole connects over IPv4 without waiting for IPv6 to fail.
final class DualStackMediaPathTests: XCTestCase {
    private static let certificateA = try! DTLSCertificate.generate(commonName: "a")
    private static let certificateB = try! DTLSCertificate.generate(commonName: "b")
    private let speech = TestSignals.speechLike(seconds: 3)
    private let tones = TestSignals.multiTone([(440, 5_000), (1_250, 3_000)], seconds: 3)
    private var cleanup: [() -> Void] = []

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
    }

    private struct Side {
        let stream: AudioStream
        let device: BufferAudioDevice
    }

    /// Where a side's sockets are and what its SDP would say.
    private struct Endpoint {
        let socket: UDPSocket
        /// Host candidate addresses (the port is the socket's unless a black hole's is given).
        let candidates: [TransportAddress]
    }

    private func socket(_ host: String) throws -> UDPSocket {
        let socket = try UDPSocket(bindTo: SocketAddress(host: host, port: 0))
        cleanup.append { socket.close() }
        return socket
    }

    private func address(_ ip: String, _ port: Int) throws -> TransportAddress {
        try XCTUnwrap(IPAddress(ip).map { TransportAddress(ip: $0, port: UInt16(port)) })
    }

    /// Host candidates as a dual-stack client offers them: each address at the preference
    /// RFC 8421's interleaving gives it.
    private func candidates(_ addresses: [TransportAddress]) -> [ICECandidate] {
        let preferences = ICECandidate.localPreferences(interleaving: addresses.map(\.ip))
        return addresses.map { .local(.host, address: $0, base: $0, localPreference: preferences[$0.ip] ?? 0) }
    }

    /// A (controlling, DTLS server) and B, each on its own socket, told of the other's candidates.
    private func connect(_ a: Endpoint, _ b: Endpoint) throws -> (a: Side, b: Side) {
        var random = SplitMix64(seed: 11)
        let credentialsA = ICECredentials.random(using: &random), credentialsB = ICECredentials.random(using: &random)
        let localA = candidates(a.candidates), localB = candidates(b.candidates)
        let pathA = MediaPathSetup(
            localCredentials: credentialsA, localCandidates: localA, isControlling: true,
            remoteICE: .init(credentials: credentialsB, candidates: localB, isLite: false),
            certificate: Self.certificateA, dtlsRole: .server, remoteFingerprints: [Self.certificateB.fingerprint])
        let pathB = MediaPathSetup(
            localCredentials: credentialsB, localCandidates: localB, isControlling: false,
            remoteICE: .init(credentials: credentialsA, candidates: localA, isLite: false),
            certificate: Self.certificateB, dtlsRole: .client, remoteFingerprints: [Self.certificateA.fingerprint])
        func side(_ endpoint: Endpoint, _ path: MediaPathSetup, signal: [Int16], ssrc: UInt32) throws -> Side {
            var configuration = AudioStreamConfiguration(
                localAddress: endpoint.socket.localAddress, codec: .opus(OpusSettings()), encryption: .dtlsSRTP)
            configuration.ssrc = ssrc
            let stream = try AudioStream(configuration: configuration, transport: endpoint.socket, path: path)
            cleanup.append { stream.stop() }
            return Side(stream: stream, device: BufferAudioDevice(captureSamples: signal, loop: true, recordingCapacity: 48_000 * 20))
        }
        let sideA = try side(a, pathA, signal: speech, ssrc: 0xA1)
        let sideB = try side(b, pathB, signal: tones, ssrc: 0xB2)
        // The signaled address is the first candidate's, as `c=` would be.
        func signaled(_ endpoint: Endpoint) throws -> SocketAddress {
            let first = try XCTUnwrap(endpoint.candidates.first)
            return try SocketAddress(host: first.ip.description, port: Int(first.port))
        }
        try sideA.stream.start(remote: try signaled(b), audioDevice: sideA.device)
        try sideB.stream.start(remote: try signaled(a), audioDevice: sideB.device)
        return (sideA, sideB)
    }

    /// Both sides connected over `family` and heard each other.
    private func assertConnected(_ call: (a: Side, b: Side), ipv6: Bool, within seconds: Double, file: StaticString = #filePath, line: UInt = #line) {
        let started = Date()
        let connected = PollingWait.until(timeout: 10) {
            call.a.stream.stats.dtlsState == .connected && call.b.stream.stats.dtlsState == .connected
        }
        let took = Date().timeIntervalSince(started)
        XCTAssertTrue(connected, "A \(call.a.stream.stats.selectedCandidatePair as Any), B \(call.b.stream.stats.selectedCandidatePair as Any)", file: file, line: line)
        print("dual-stack: connected in \(Int(took * 1000)) ms over \(call.a.stream.stats.selectedCandidatePair?.description ?? "-")")
        XCTAssertLessThan(took, seconds, "connected within \(seconds) s", file: file, line: line)
        PollingWait.sleep(2)
        for (name, stats) in [("A", call.a.stream.stats), ("B", call.b.stream.stats)] {
            let pair = stats.selectedCandidatePair
            XCTAssertEqual(pair?.local.ip.isIPv6, ipv6, "\(name): \(pair as Any)", file: file, line: line)
            XCTAssertEqual(pair?.remote.ip.isIPv6, ipv6, "\(name): \(pair as Any)", file: file, line: line)
            XCTAssertEqual(stats.srtpAuthFailures, 0, name, file: file, line: line)
        }
        let atB = SpectralSimilarity(playedInALoop: speech, in: Array(call.b.device.recordedSamples.suffix(48_000)))
        let atA = SpectralSimilarity(playedInALoop: tones, in: Array(call.a.device.recordedSamples.suffix(48_000)))
        XCTAssertGreaterThan(atB.score, 0.75, "A→B \(atB)", file: file, line: line)
        XCTAssertGreaterThan(atA.score, 0.75, "B→A \(atA)", file: file, line: line)
    }

    func testOneSocketCarriesBothFamilies() throws {
        let dual = try socket("::")
        XCTAssertTrue(dual.isDualStack)
        let four = try socket("127.0.0.1"), six = try socket("::1")
        for (peer, loopback) in [(four, "127.0.0.1"), (six, "::1")] {
            let to = try SocketAddress(host: loopback, port: dual.localAddress.port)
            XCTAssertTrue([UInt8](repeating: 7, count: 20).withUnsafeBytes { peer.send($0, to: to) })
            var buffer = [UInt8](repeating: 0, count: 64)
            var source = try SocketAddress(host: "::", port: 0)
            XCTAssertTrue(PollingWait.until(timeout: 2) {
                buffer.withUnsafeMutableBytes { dual.receive(into: $0, from: &source, wallClockOffset: 0) } != nil
            })
            XCTAssertEqual(source, try SocketAddress(host: loopback, port: peer.localAddress.port), "the sender unmapped: \(source)")
            // And back, to the plain IPv4 or IPv6 address, from that family's loopback.
            XCTAssertTrue([UInt8](repeating: 9, count: 10).withUnsafeBytes { dual.send($0, to: source, from: try? SocketAddress(host: loopback, port: 0)) })
            var from: SocketAddress?
            XCTAssertTrue(PollingWait.until(timeout: 2) { buffer.withUnsafeMutableBytes { peer.receive(into: $0, source: &from) } == 10 })
            XCTAssertEqual(from?.port, dual.localAddress.port)
        }
        try dual.setDSCP(46)
        XCTAssertEqual(dual.dscp(), 46)
    }

    func testAnIPv4OnlyPeerConnectsOverIPv4() throws {
        let a = try socket("::"), b = try socket("127.0.0.1")
        let call = try connect(
            Endpoint(socket: a, candidates: [try address("127.0.0.1", a.localAddress.port), try address("::1", a.localAddress.port)]),
            Endpoint(socket: b, candidates: [try address("127.0.0.1", b.localAddress.port)]))
        assertConnected(call, ipv6: false, within: 3)
    }

    func testAnIPv6OnlyPeerConnectsOverIPv6() throws {
        let a = try socket("::"), b = try socket("::1")
        let call = try connect(
            Endpoint(socket: a, candidates: [try address("127.0.0.1", a.localAddress.port), try address("::1", a.localAddress.port)]),
            Endpoint(socket: b, candidates: [try address("::1", b.localAddress.port)]))
        assertConnected(call, ipv6: true, within: 3)
    }

    /// Both sides dual-stack, IPv6 preferred, but every IPv6 packet vanishes: each side's IPv6
    /// candidate is a socket that reads and never answers (no ICMP either, as behind a
    /// firewall that drops). The interleaved preferences check IPv4 next, so the call connects
    /// over IPv4 in well under a second, without waiting for IPv6's checks to time out.
    func testADualStackPeerWhoseIPv6IsBlackHoledConnectsOverIPv4() throws {
        let a = try socket("::"), b = try socket("::")
        let holeA = try socket("::1"), holeB = try socket("::1")
        let call = try connect(
            Endpoint(socket: a, candidates: [try address("::1", holeA.localAddress.port), try address("127.0.0.1", a.localAddress.port)]),
            Endpoint(socket: b, candidates: [try address("::1", holeB.localAddress.port), try address("127.0.0.1", b.localAddress.port)]))
        assertConnected(call, ipv6: false, within: 1.5)
    }
}
