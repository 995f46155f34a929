import Foundation

/// A record a ``DNSServerPeer`` publishes.
public enum DNSServerRecord: Hashable, Sendable {
    /// An A (or AAAA) record: `host` has `address`.
    case host(String, address: String)
    /// An SRV record (RFC 2782): `service` (`_sip._udp.example.test`) is at `target`:`port`.
    case service(String, target: String, port: Int, priority: Int, weight: Int)
    /// A NAPTR record (RFC 3403) with flag `S`: `domain` offers `service` (`SIP+D2U`,
    /// `SIPS+D2T`) at the SRV name `replacement`.
    case namingPointer(String, order: Int, preference: Int, service: String, replacement: String)

    var argument: String {
        switch self {
        case .host(let host, let address): "--host-record=\(host),\(address)"
        case .service(let name, let target, let port, let priority, let weight): "--srv-host=\(name),\(target),\(port),\(priority),\(weight)"
        case .namingPointer(let domain, let order, let preference, let service, let replacement):
            "--naptr-record=\(domain),\(order),\(preference),S,\(service),,\(replacement)"
        }
    }

    var names: [String] {
        switch self {
        case .host(let host, let address): [host, address]
        case .service(let name, let target, _, _, _): [name, target]
        case .namingPointer(let domain, _, _, let service, let replacement): [domain, service, replacement]
        }
    }
}

/// dnsmasq as an authoritative DNS server on loopback (Debian's `dnsmasq-base`): the records
/// given, NXDOMAIN for any other name under ``domain``, nothing forwarded. Thread-safe.
public final class DNSServerPeer: Sendable {
    /// The UDP and TCP port.
    public let port: Int
    /// The address, `127.0.0.1`.
    public let host: String
    /// The zone answered locally.
    public let domain: String
    /// `host:port`, as a name server setting takes it.
    public var nameServer: String { "\(host):\(port)" }
    private let process: SIPPeerProcess
    private let directory: String

    /// Starts dnsmasq publishing `records` for `domain` with `ttl` seconds on each.
    public init(domain: String = "example.test", records: [DNSServerRecord], ttl: Int = 60) throws(SIPPeerError) {
        try SIPPeerTemplate.validate(domain, as: "domain")
        for record in records { for name in record.names { try SIPPeerTemplate.validate(name, as: "DNS record") } }
        let port = try SIPPeerProcess.freePort()
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "dnsmasq")
        let arguments =
            [
                "--keep-in-foreground", "--conf-file=/dev/null", "--no-resolv", "--no-hosts", "--no-poll", "--bind-interfaces",
                "--listen-address=127.0.0.1", "--port=\(port)", "--user=root", "--pid-file=", "--log-queries", "--log-facility=-",
                "--local=/\(domain)/", "--local-ttl=\(ttl)", "--auth-ttl=\(ttl)",
            ] + records.map(\.argument)
        let process = try SIPPeerProcess(
            name: "dnsmasq", executable: Self.executable, arguments: arguments, workingDirectory: directory,
            logPath: directory + "/dnsmasq.log")
        let deadline = ContinuousClock.now + .seconds(10)
        while !process.log.contains("started, version") {
            guard process.isRunning, ContinuousClock.now < deadline else {
                process.stop()
                throw SIPPeerError(.notReady, "dnsmasq did not start; log:\n\(process.logTail())")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        self.port = port
        self.host = "127.0.0.1"
        self.domain = domain
        self.process = process
        self.directory = directory
    }

    /// The dnsmasq binary (Debian installs it in /usr/sbin).
    public static let executable = "dnsmasq"

    /// The queries logged so far (`query[SRV] _sip._udp.example.test from 127.0.0.1`).
    public var log: String { process.log }

    /// Stops dnsmasq and removes its directory.
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}
