import VoiceNetwork
import ArgumentParser
import Foundation
import Logging
import NIOSSL
import VoiceCore
import VoiceSIP
import VoiceSIPAgent
import VoiceSupport

/// Server, identity and credential options shared by `call` and `listen`.
struct ClientOptions: ParsableArguments {
    @Option(help: "Our user name (the user part of sip:identity@domain).") var identity = "alice"
    @Option(help: "The SIP domain destinations without a domain are placed in.") var domain = "127.0.0.1"
    @Option(help: "Signaling transport: udp, tcp, tls, ws or wss (SIP over WebSocket, RFC 7118: with --url, or listening for browsers without one).") var transport = "udp"
    @Option(help: "A SIP-over-WebSocket server to connect to: ws://host[:port]/path or wss://host[:port]/path (sets the transport).") var url: String?
    @Option(help: "This machine's address that peers and the server can reach: SIP and RTP bind there and it is announced in Contact and SDP. 'auto': bind every address, announce the preferred interface's and follow network changes.") var listen = "127.0.0.1"
    @Option(help: "With --listen auto: an interface's type, name=ethernet|wifi|vpn|cellular|loopback (repeatable).") var interfaceType: [String] = []
    @Option(help: "The local SIP port (0 picks one).") var port = 0
    @Option(help: "Outbound proxy: host[:port] or a SIP URI, e.g. sip:proxy.example.com;transport=tcp.") var proxy: String?
    @Option(help: "A proxy tried once every server of --proxy failed (repeatable, in order).") var fallbackProxy: [String] = []
    @Option(help: "A DNS server for locating SIP servers (NAPTR, SRV, A): ip or ip:port, [v6]:port (repeatable; default: /etc/resolv.conf's).")
    var nameServer: [String] = []
    @Option(help: "Registrar: host[:port] or a SIP URI (default: the domain).") var registrar: String?
    @Option(help: "Digest user name for 401/407 challenges.") var username: String?
    @Option(help: "Digest password.") var password: String?
    @Option(help: "An access token (JWT), for a server that asks for one (a Bearer challenge); default: none.") var token: String?
    @Flag(help: "Allow plain RTP (only for peers that cannot do SRTP).") var unencrypted = false
    @Option(help: "How media is keyed: automatic (ICE + DTLS-SRTP, SDES when the peer has only that), dtls, or sdes.")
    var mediaSecurity = "automatic"
    @Flag(help: "Send and accept SRTP keys over UDP/TCP signaling to other machines (readable on the path; prefer --transport tls).")
    var allowClearTextKeys = false
    @Option(help: "Seconds a call may spend reconnecting (media or signaling) before it ends (default 30).") var reconnectTimeout: Double?
    @Option(help: "With --transport tls: our certificate chain (PEM), for accepting TLS connections.") var tlsCertificate: String?
    @Option(help: "With --tls-certificate: its private key (PEM).") var tlsKey: String?
    @Option(help: "With --transport tls: a CA certificate (PEM) to trust besides the system's.") var tlsCA: String?
    @Option(help: "A public key the TLS server must prove: sha256//BASE64 of its SubjectPublicKeyInfo (repeatable).")
    var tlsPin: [String] = []
    @Option(help: "A STUN server, host[:port], for a client behind a NAT: SDP, Contact and Via carry the NAT's address.") var stun: String?
    @Option(help: "A TURN server for DTLS-SRTP calls' relayed candidate, as a URL: turn:host[:port].") var turn: String?
    @Option(help: "With --turn: the TURN username.") var turnUsername: String?
    @Option(help: "With --turn: the TURN password.") var turnPassword: String?
    @Flag(help: "With --turn: offer only the relayed candidate (WebRTC's iceTransportPolicy relay); media always goes through the TURN server.")
    var relayOnly = false
    @Option(help: "Seconds between keep-alives to the proxy or registrar (default 15).") var keepaliveInterval: Double?
    @Option(help: "Seconds a keep-alive may go unanswered before the signaling path counts as dead (default 10).") var keepaliveTimeout: Double?
    @Flag(help: "Log SIP messages and Insights events.") var verbose = false

    func makeConfiguration() throws -> VoiceClientConfiguration {
        guard let transport = SIPTransportProtocol(token: transport) else {
            throw ValidationError("--transport must be udp, tcp, tls, ws or wss")
        }
        if url != nil, proxy != nil { throw ValidationError("--url and --proxy both name the server: give one") }
        if let url, !url.lowercased().hasPrefix("ws://"), !url.lowercased().hasPrefix("wss://") {
            throw ValidationError("--url takes ws://host[:port]/path or wss://host[:port]/path")
        }
        var logger = Logger(label: "voicecall")
        logger.logLevel = verbose ? .trace : .warning
        func address<Address>(_ text: String?, _ option: String, _ parse: (String) throws(VoiceError) -> Address) throws -> Address? {
            guard let text else { return nil }
            do {
                return try parse(text)
            } catch {
                throw ValidationError("--\(option): \(error.failureReason ?? "\(error)")".escapingControlCharacters)
            }
        }
        var configuration = VoiceClientConfiguration(
            identity: identity, domain: domain, transport: transport, listenHost: listen, listenPort: port,
            outboundProxy: try address(url ?? proxy, url == nil ? "proxy" : "url", SIPServerAddress.init),
            registrar: try address(registrar, "registrar", SIPServerAddress.init),
            username: username ?? (password == nil ? nil : identity),
            password: password,
            logger: logger)
        if !fallbackProxy.isEmpty, proxy == nil { throw ValidationError("--fallback-proxy follows --proxy: give that first") }
        configuration.fallbackProxies = try fallbackProxy.compactMap { try address($0, "fallback-proxy", SIPServerAddress.init) }
        for server in nameServer where !DNSResolver.isServerAddress(server) {
            throw ValidationError("--name-server: \(server) is not an IP address with an optional port".escapingControlCharacters)
        }
        configuration.nameServers = nameServer
        // A WebSocket transport with no server to connect to listens: browsers call us directly.
        configuration.acceptsWebSocketConnections = transport.isWebSocket && url == nil && proxy == nil && registrar == nil
        guard var security = MediaSecurity(name: mediaSecurity) else {
            throw ValidationError(
                "--media-security \(mediaSecurity): automatic, dtls, sdes, automatic-unencrypted-signaling, sdes-unencrypted-signaling or unencrypted")
        }
        if unencrypted { security = .unencrypted }
        if allowClearTextKeys {
            guard security != .dtls, security != .unencrypted else {
                throw ValidationError("--allow-clear-text-keys is for SDES keys: not with --media-security \(mediaSecurity) or --unencrypted")
            }
            security = security == .sdes ? .sdesOverUnencryptedSignaling : .automaticOverUnencryptedSignaling
        }
        configuration.mediaSecurity = security
        configuration.stunServer = try address(stun, "stun", STUNServerAddress.init)
        configuration.tls = try tlsSettings()
        if let turn {
            do {
                configuration.iceOptions.servers = [try ICEServer(turn, username: turnUsername, password: turnPassword)]
            } catch {
                throw ValidationError("--turn: \(error.failureReason ?? "\(error)")".escapingControlCharacters)
            }
        } else if relayOnly || turnUsername != nil || turnPassword != nil {
            throw ValidationError("--relay-only, --turn-username and --turn-password need --turn")
        }
        configuration.iceOptions.transportPolicy = relayOnly ? .relay : .all
        func duration(_ seconds: Double?, _ name: String) throws -> Duration? {
            guard let seconds else { return nil }
            guard seconds > 0, seconds <= 3_600 else { throw ValidationError("--\(name) takes 0–3600 seconds") }
            return .milliseconds(Int64(seconds * 1000))
        }
        let timeout = try duration(reconnectTimeout, "reconnect-timeout")
        configuration.reconnection = CallReconnectionPolicy(
            mediaReconnectTimeout: timeout, signalingReconnectTimeout: timeout,
            keepAliveInterval: try duration(keepaliveInterval, "keepalive-interval"),
            keepAliveTimeout: try duration(keepaliveTimeout, "keepalive-timeout"))
        if listen == "auto" {
            var types: [String: NetworkInterfaceType] = [:]
            for entry in interfaceType {
                let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let type = NetworkInterfaceType.allCases.first(where: { "\($0)".lowercased() == parts[1].lowercased() })
                else { throw ValidationError("--interface-type takes name=ethernet|wifi|vpn|cellular|loopback, not \(entry)") }
                types[parts[0]] = type
            }
            configuration.addressSelection = .automatic
            configuration.interfaceTypes = types
        } else if !interfaceType.isEmpty {
            throw ValidationError("--interface-type needs --listen auto")
        }
        return configuration
    }

    /// The TLS settings the options ask for: the system's trust plus `--tls-ca`, and our
    /// certificate for incoming connections.
    private func tlsSettings() throws -> TLSSettings {
        switch (tlsCertificate, tlsKey) {
        case (nil, nil), (.some, .some): break
        default: throw ValidationError("--tls-certificate and --tls-key go together")
        }
        return TLSSettings(
            trustedCertificateFiles: tlsCA.map { [$0] } ?? [], certificateFile: tlsCertificate, privateKeyFile: tlsKey,
            pinnedPublicKeys: tlsPin)
    }

    func makeClient() throws -> VoiceClient {
        try VoiceClient(configuration: makeConfiguration())
    }
}
