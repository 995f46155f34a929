import VoiceAddress
import VoiceSTUN
import VoiceICE
import VoiceNetwork
import VoiceSIPAgent

extension VoiceClient {
    /// Puts the ICE options into the agent's configuration: the `turn:` and `turns:` servers
    /// (resolved now; over UDP first, then TCP, then TLS) for relayed candidates, a `stun:` server when no STUN server is set,
    /// and the policy.
    /// - Throws: ``VoiceError`` 31009 (``VoiceError/Code/transportError``) when a server's
    ///   host cannot be resolved, or 31100 when the relay-only policy has no TURN server it can use.
    static func applyICEOptions(
        _ options: ICEOptions, to configuration: inout SIPUserAgentConfiguration, trustedCertificatesFile: String? = nil
    ) throws(VoiceError) {
        configuration.candidatePolicy = options.transportPolicy == .relay ? .relay : .all
        for server in options.servers where server.parsed.scheme == .stun && configuration.stunServer == nil {
            configuration.stunServer = try resolve(server)
        }
        // UDP servers first, then TCP, then TLS: a call tries each in turn until one grants a relay.
        let turn = options.servers.filter(\.isTURN)
        let ordered =
            turn.filter { $0.parsed.transport == .udp } + turn.filter { $0.parsed.transport == .tcp && !$0.parsed.usesTLS }
            + turn.filter(\.parsed.usesTLS)
        for server in ordered {
            guard let username = server.username, let password = server.password else { continue }
            let address = try resolve(server)
            let transport: TURNServer.Transport =
                server.parsed.usesTLS ? .tls(serverName: server.parsed.host) : server.parsed.transport == .tcp ? .tcp : .udp
            var made = TURNServer(
                address: address, transport: transport, username: username,
                password: password)
            made.trustedCertificatesFile = trustedCertificatesFile
            configuration.turnServers.append(made)
        }
        if options.transportPolicy == .relay, configuration.turnServers.isEmpty {
            throw VoiceError(.malformedRequest, failureReason: "the relay-only ICE policy needs a turn: or turns: server")
        }
    }

    /// The server's address, its host name resolved now.
    private static func resolve(_ server: ICEServer) throws(VoiceError) -> TransportAddress {
        let host = server.parsed.host.contains(":") ? "[\(server.parsed.host)]" : server.parsed.host
        return try resolveSTUNServer(try STUNServerAddress("\(host):\(server.parsed.port)"))
    }
}
