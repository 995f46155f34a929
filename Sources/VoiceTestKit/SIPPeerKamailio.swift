import VoiceRTP
import Foundation
import VoiceMedia

/// How a ``KamailioPeer`` is configured.
public struct KamailioConfiguration: Hashable, Sendable {
    /// Users and their digest passwords (plain text in the generated config, no database).
    public var users: [String: String] = ["alice": "alicepass", "bob": "bobpass"]
    /// The digest realm and the proxy's domain alias.
    public var realm: String = "sippeer.test"
    /// The UDP port; 0 picks a free one.
    public var udpPort: Int = 0
    /// The TCP port; 0 picks a free one.
    public var tcpPort: Int = 0
    /// The address Kamailio listens on. Default `127.0.0.1`.
    public var listenHost: String = "127.0.0.1"
    /// Where Kamailio's modules live (Debian's path by default).
    public var modulePath: String = "/usr/lib/x86_64-linux-gnu/kamailio/modules/"
    /// A TLS listener (Debian's `kamailio-tls-modules`): its port, and the certificate chain
    /// and key (PEM files) it presents; nil: none. Kamailio does not verify its peers'
    /// certificates (the client side checks Kamailio's).
    public var tls: KamailioTLS?
    /// With the WebSocket template (``PeerTemplates/kamailioWebSocket``): the port of SIP over
    /// WebSocket (`ws://`); 0 picks a free one.
    public var webSocketPort: Int = 0
    /// With the WebSocket template and ``tls``: the port of SIP over secure WebSocket
    /// (`wss://`), presenting the TLS listener's certificate; nil: none.
    public var secureWebSocketPort: Int?
    /// With the WebSocket template: rtpengine's control address (`127.0.0.1:2223`, its ng
    /// protocol), which makes Kamailio a WebRTC gateway: every SDP goes through rtpengine; nil:
    /// the media flows between the ends.
    public var rtpengineControl: String?
    /// With the dispatcher template (``PeerTemplates/kamailioDispatcher``): the SIP URIs of the
    /// destinations calls are spread over (`sip:127.0.0.1:5070`), written to `dispatcher.list`.
    public var dispatcherDestinations: [String] = []
    /// With the dispatcher template: seconds between OPTIONS health checks.
    public var dispatcherPingInterval: Int = 1
    /// Redirects (the default template): an INVITE for one of these users gets 302 Moved
    /// Temporarily with the user's SIP URI here as its Contact (`sl_send_reply` with an
    /// appended Contact, as a redirect server answers).
    public var redirects: [String: String] = [:]
    /// RFC 4028 in the proxy (Kamailio's sst and dialog modules): the smallest Session-Expires
    /// it lets through (422 below), each dialog timed by its Session-Expires and ended with a
    /// BYE to both sides when no refresh passed in time; each refresh that passes is logged as
    /// `SST refresh <method>`. nil: no session timers in the proxy.
    public var sessionTimerMinimumSE: Int?

    /// The defaults: users alice/alicepass and bob/bobpass, realm `sippeer.test`, free ports.
    public init() {}
}

/// A TLS listener of a ``KamailioPeer``.
public struct KamailioTLS: Hashable, Sendable {
    /// The TLS port.
    public var port: Int
    /// The certificate chain (PEM file).
    public var certificate: String
    /// Its private key (PEM file).
    public var privateKey: String

    /// A TLS listener on `port` presenting `certificate` and `privateKey`.
    public init(port: Int = 5061, certificate: String, privateKey: String) {
        self.port = port
        self.certificate = certificate
        self.privateKey = privateKey
    }
}

/// Kamailio 5.6 as registrar, location service and record-routing proxy with digest auth,
/// on 127.0.0.1 (or ``KamailioConfiguration/listenHost``), its `kamailio.cfg` written from a
/// template. Thread-safe.
public final class KamailioPeer: Sendable {
    /// The configuration the proxy runs with (ports resolved).
    public let configuration: KamailioConfiguration
    /// The directory holding `kamailio.cfg`, `kamailio.log` and the runtime directory `run`.
    public let directory: String
    /// The UDP address.
    package let udpAddress: SocketAddress
    /// The `ws://` URL of the WebSocket template's listener (`ws://127.0.0.1:port/`).
    public var webSocketURL: String { "ws://\(configuration.listenHost):\(configuration.webSocketPort)/" }
    /// The `wss://` URL, when there is a secure WebSocket listener.
    public var secureWebSocketURL: String? { configuration.secureWebSocketPort.map { "wss://\(configuration.listenHost):\($0)/" } }
    /// The proxy's URI over UDP, e.g. `sip:127.0.0.1:5060`.
    public let uri: String
    /// The running process.
    package let process: SIPPeerProcess

    /// Writes `kamailio.cfg` from the template at `templatePath`, checks it (`kamailio -c`),
    /// starts `kamailio -DD -E` and waits until it answers OPTIONS.
    /// - Parameters:
    ///   - templatePath: The `kamailio.cfg` template.
    ///   - configuration: Users, realm, ports.
    ///   - executable: The binary, `kamailio` on `PATH` (or in `/usr/sbin`) by default.
    ///   - readyTimeout: How long to wait for the OPTIONS answer.
    public convenience init(
        templatePath: String? = PeerTemplates.kamailio, configuration: KamailioConfiguration = KamailioConfiguration(),
        executable: String = "kamailio", readyTimeout: Duration = .seconds(10)
    ) throws(SIPPeerError) {
        try self.init(
            templatePath: templatePath, configuration: configuration, executable: executable, namespace: nil,
            readyTimeout: readyTimeout)
    }

    /// Starts Kamailio inside `namespace` (`ip netns exec`); ready once its log says its UDP
    /// socket is bound (the test process cannot reach into the namespace to probe it).
    package init(
        templatePath: String? = PeerTemplates.kamailio, configuration: KamailioConfiguration = KamailioConfiguration(),
        executable: String = "kamailio", namespace: NetworkNamespace?, readyTimeout: Duration = .seconds(10)
    ) throws(SIPPeerError) {
        guard let templatePath else {
            throw SIPPeerError(.invalidTemplate, "no Kamailio template: VoiceTestKit's resource bundle is missing")
        }
        var config = configuration
        if config.udpPort == 0 { config.udpPort = try SIPPeerProcess.freePort() }
        try SIPPeerTemplate.validate(config.listenHost, as: "listen host")
        if config.tcpPort == 0 { config.tcpPort = config.udpPort }
        try SIPPeerTemplate.validate(config.realm, as: "realm")
        try SIPPeerTemplate.validate(config.modulePath, as: "module path")
        var users: [String] = []
        for (user, password) in config.users.sorted(by: { $0.key < $1.key }) {
            try SIPPeerTemplate.validate(user, as: "user")
            try SIPPeerTemplate.validate(password, as: "password")
            users.append("    $sht(users=>\(user)) = \"\(password)\";")
        }
        for (user, target) in config.redirects.sorted(by: { $0.key < $1.key }) {
            try SIPPeerTemplate.validate(user, as: "user")
            try SIPPeerTemplate.validate(target, as: "redirect target")
            users.append("    $sht(redirects=>\(user)) = \"\(target)\";")
        }
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "kamailio")
        let runtime = directory + "/run"
        do { try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true) } catch {
            throw SIPPeerError(.fileSystem, "cannot create \(runtime): \(error)")
        }
        var tlsListen = "# no TLS listener"
        var tlsModule = "# no TLS module"
        if let tls = config.tls {
            try SIPPeerTemplate.validate(tls.certificate, as: "certificate")
            try SIPPeerTemplate.validate(tls.privateKey, as: "private key")
            let tlsConfig = """
                [server:default]
                method = TLSv1.2+
                verify_certificate = no
                require_certificate = no
                certificate = \(tls.certificate)
                private_key = \(tls.privateKey)

                [client:default]
                method = TLSv1.2+
                verify_certificate = no
                require_certificate = no

                """
            do { try tlsConfig.write(toFile: directory + "/tls.cfg", atomically: true, encoding: .utf8) } catch {
                throw SIPPeerError(.fileSystem, "cannot write tls.cfg: \(error)")
            }
            tlsListen = "enable_tls=yes\nlisten=tls:\(config.listenHost):\(tls.port)\nalias=\"\(config.listenHost):\(tls.port)\""
            tlsModule = "loadmodule \"tls.so\"\nmodparam(\"tls\", \"config\", \"\(directory)/tls.cfg\")"
        }
        if config.webSocketPort == 0 { config.webSocketPort = try SIPPeerProcess.freePort() }
        if let control = config.rtpengineControl { try SIPPeerTemplate.validate(control, as: "rtpengine control address") }
        var wssListen = "# no wss listener"
        if let port = config.secureWebSocketPort {
            guard config.tls != nil else {
                throw SIPPeerError(.invalidValue, "a secure WebSocket listener needs the TLS certificate (tls)")
            }
            wssListen = "listen=tls:\(config.listenHost):\(port)\nalias=\"\(config.listenHost):\(port)\""
        }
        var list: [String] = []
        for destination in config.dispatcherDestinations {
            try SIPPeerTemplate.validate(destination, as: "dispatcher destination")
            list.append("1 \(destination)")
        }
        let listPath = directory + "/dispatcher.list"
        guard FileManager.default.createFile(atPath: listPath, contents: Data((list.joined(separator: "\n") + "\n").utf8)) else {
            throw SIPPeerError(.fileSystem, "cannot write \(listPath)")
        }
        let values = [
            "DISPATCHER_LIST": listPath,
            "PING_INTERVAL": String(max(1, config.dispatcherPingInterval)),
            "LISTEN_HOST": config.listenHost,
            "UDP_PORT": String(config.udpPort),
            "TCP_PORT": String(config.tcpPort),
            "TLS_LISTEN": tlsListen,
            "TLS_MODULE": tlsModule,
            "WS_PORT": String(config.webSocketPort),
            "WSS_PORT": String(config.secureWebSocketPort ?? config.webSocketPort),
            "WSS_LISTEN": wssListen,
            "DEFINES": config.rtpengineControl == nil ? "# no rtpengine" : "#!define WITH_RTPENGINE",
            "RTPENGINE_CONTROL": config.rtpengineControl ?? "127.0.0.1:1",
            "REALM": config.realm,
            "MODULE_PATH": config.modulePath,
            "USERS": users.joined(separator: "\n"),
            "SST_DEFINE": config.sessionTimerMinimumSE == nil ? "# no session timers" : "#!define WITH_SST",
            "SST_MIN_SE": String(config.sessionTimerMinimumSE ?? 90),
        ]
        let cfg = directory + "/kamailio.cfg"
        try SIPPeerTemplate.renderFile(templatePath, to: cfg, values: values)
        let address: SocketAddress
        do { address = try SocketAddress(host: config.listenHost, port: config.udpPort) } catch {
            throw SIPPeerError(.socket, "\(error)")
        }
        // Small shared/private memory so several instances fit on a test machine.
        let arguments = ["-f", cfg, "-DD", "-E", "-Y", runtime, "-P", runtime + "/kamailio.pid", "-m", "32", "-M", "4"]
        let uri = "sip:\(config.listenHost):\(config.udpPort)"
        let process: SIPPeerProcess
        if let namespace {
            // Through a shell that stays Kamailio's parent: Kamailio closes the descriptors it
            // inherits, and Foundation takes its watch descriptor closing for the process's exit
            // (then blocks in waitpid, stalling every other Process of this test).
            process = try SIPPeerProcess(
                name: "kamailio", executable: "ip",
                arguments: ["netns", "exec", namespace.name, "sh", "-c", "\"$0\" \"$@\"; exit $?", executable] + arguments,
                workingDirectory: directory, logPath: directory + "/kamailio.log")
            // The UDP socket is bound when its buffer is sized; the workers follow within ms, and
            // a REGISTER or INVITE arriving before them is retransmitted (T1).
            let deadline = ContinuousClock.now + readyTimeout
            while !process.log.contains("SO_RCVBUF is finally") {
                guard process.isRunning, ContinuousClock.now < deadline else {
                    process.stop()
                    throw SIPPeerError(.notReady, "kamailio in \(namespace.name) did not start; log:\n\(process.logTail())")
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
        } else {
            // Through a shell too: Kamailio closes the descriptors it inherits, which stalls
            // Foundation's reaping of every other Process (see above) until Kamailio exits.
            guard let path = SIPPeerProcess.executablePath(executable) else {
                throw SIPPeerError(.notInstalled, "\(executable) not found on PATH")
            }
            process = try SIPPeerProcess.launchReady(
                name: "kamailio", executable: "sh", arguments: ["-c", "\"$0\" \"$@\"; exit $?", path] + arguments,
                workingDirectory: directory, logPath: directory + "/kamailio.log",
                readyAt: address, requestURI: uri, timeout: readyTimeout)
        }
        self.configuration = config
        self.directory = directory
        self.udpAddress = address
        self.uri = uri
        self.process = process
    }

    /// Whether Debian's `kamailio-websocket-modules` is installed (the WebSocket template needs it).
    public static func hasWebSocketModules(modulePath: String = KamailioConfiguration().modulePath) -> Bool {
        FileManager.default.fileExists(atPath: modulePath + "websocket.so")
    }

    /// The log so far (Kamailio logs to stderr with `-E`).
    public var log: String { process.log }

    /// Stops Kamailio and its workers (SIGTERM, then SIGKILL to the group) and removes its directory.
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}
