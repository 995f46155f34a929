import VoiceEmbedded
import Foundation
import VoiceSupport

/// coturn (Debian's `turnserver`) as a TURN server on loopback for a test: long-term
/// credentials (user `alice`, password `secret`, realm `example.org`), relayed ports drawn
/// from the peers' media range, loopback peers allowed (coturn refuses them by default), no
/// TLS, no CLI. Stopped with ``stop()``.
package final class TURNServerPeer: Sendable {
    package static let username = "alice"
    package static let password = "secret"
    package static let realm = "example.org"

    package let port: Int
    /// The TLS port (`turns:`), when started with a certificate.
    package let tlsPort: Int?
    package let process: SIPPeerProcess
    /// `turn:127.0.0.1:<port>`.
    package var url: String { "turn:127.0.0.1:\(port)" }

    /// Starts coturn in `directory` and waits until its relays are ready; with `tls` (a PEM
    /// certificate and key file), also TLS on another port.
    /// - Throws: ``SIPPeerError`` when it is not installed, does not start or never gets ready.
    /// - Parameter relayHost: the address relayed ports are on (default `host`): a peer that is
    ///   only on the machine's own address (baresip's ICE leaves loopback out) needs that one.
    package convenience init(
        directory: String, host: String = "127.0.0.1", relayHost: String? = nil, tls: (certificate: String, key: String)? = nil
    ) throws(SIPPeerError) {
        let port = try SIPPeerProcess.freePort(host: host)
        var tlsPort: Int?
        if tls != nil {
            repeat { tlsPort = try SIPPeerProcess.freePort(host: host) } while tlsPort == port
        }
        let relayPorts = try SIPPeerProcess.freeUDPPortRange(count: 40, host: host)
        try self.init(
            directory: directory, host: host, port: port, relayHosts: [relayHost ?? host], relayPorts: relayPorts,
            tls: tls.map { ($0.certificate, $0.key, tlsPort ?? 0) }, namespace: nil)
    }

    /// Starts coturn inside `namespace` (where every port is free), listening on `host` port
    /// 3478, relaying on each of `relayHosts`: one of each family makes it grant dual
    /// allocations (RFC 8656 §7.2).
    package convenience init(directory: String, in namespace: NetworkNamespace, host: String, relayHosts: [String]) throws(SIPPeerError) {
        try self.init(
            directory: directory, host: host, port: 3478, relayHosts: relayHosts, relayPorts: 49_152...49_191, tls: nil, namespace: namespace)
    }

    private init(
        directory: String, host: String, port: Int, relayHosts: [String], relayPorts: ClosedRange<Int>,
        tls: (certificate: String, key: String, port: Int)?, namespace: NetworkNamespace?
    ) throws(SIPPeerError) {
        self.port = port
        self.tlsPort = tls?.port
        let tlsArguments = tls.map { ["--cert=\($0.certificate)", "--pkey=\($0.key)", "--tls-listening-port=\($0.port)"] } ?? ["--no-tls"]
        let arguments =
            [
                "-n", "-v", "--listening-ip=\(host)", "--listening-port=\(port)",
            ] + relayHosts.map { "--relay-ip=\($0)" } + [
                "--min-port=\(relayPorts.lowerBound)", "--max-port=\(relayPorts.upperBound)", "--lt-cred-mech",
                "--user=\(Self.username):\(Self.password)", "--realm=\(Self.realm)", "--allow-loopback-peers", "--no-dtls",
                "--no-cli", "--log-file=stdout", "--simple-log", "--pidfile=\(directory)/turnserver.pid",
            ] + tlsArguments
        process = try SIPPeerProcess(
            name: "coturn", executable: namespace == nil ? "turnserver" : "ip",
            arguments: namespace.map { ["netns", "exec", $0.name, "turnserver"] + arguments } ?? arguments,
            workingDirectory: directory, logPath: directory + "/coturn.log")
        let started = process
        guard PollingWait.until(timeout: 10, { started.log.contains("Total General servers") || !started.isRunning }),
            process.isRunning
        else {
            process.stop()
            throw SIPPeerError(.notReady, "coturn did not start:\n\(process.logTail())")
        }
    }

    /// The allocations coturn logged as made (one line per new session's allocation).
    package var allocations: Int { process.log.components(separatedBy: "ALLOCATE processed, success").count - 1 }

    package func stop() { process.stop() }

    /// The machine's first IPv4 address that is not loopback (what peers' ICE gathers).
    package static func globalIPv4Address() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                current.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0, current.pointee.ifa_flags & UInt32(IFF_UP) != 0
            else { continue }
            var v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            guard inet_ntop(AF_INET, &v4, &text, socklen_t(text.count)) != nil else { continue }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }
}
