import Logging
import VoiceICE
import VoiceNetwork
import VoiceSIPAgent

extension VoiceClient {
    /// Puts the ICE options into the agent's configuration: the `turn:` servers (resolved now;
    /// those over UDP first) for relayed candidates, a `stun:` server when no STUN server is set,
    /// and the policy.
    /// - Throws: ``VoiceError`` 31009 (``VoiceError/Code/transportError``) when a server's
    ///   host cannot be resolved, or 31100 when the relay-only policy has no TURN server it can use.
    static func applyICEOptions(_ options: ICEOptions, to configuration: inout SIPUserAgentConfiguration, logger: Logger) throws(VoiceError) {
        configuration.candidatePolicy = options.transportPolicy == .relay ? .relay : .all
        for server in options.servers where !server.isTURN && configuration.stunServer == nil {
            guard server.parsed.scheme == .stun else { continue }
            configuration.stunServer = try resolveSTUNServer(try STUNServerAddress("\(server.parsed.host.contains(":") ? "[\(server.parsed.host)]" : server.parsed.host):\(server.parsed.port)"))
        }
        // UDP servers first: a call tries each in turn until one grants a relay.
        let usable = options.servers.filter { $0.isTURN && !$0.parsed.usesTLS }
        for server in options.servers where server.isTURN && server.parsed.usesTLS {
            logger.warning("ICE server \(server) is not used: TURN over TLS (turns:) is not supported")
        }
        for server in usable.filter({ $0.parsed.transport == .udp }) + usable.filter({ $0.parsed.transport == .tcp }) {
            guard let username = server.username, let password = server.password else { continue }
            let host = server.parsed.host.contains(":") ? "[\(server.parsed.host)]" : server.parsed.host
            let address = try resolveSTUNServer(try STUNServerAddress("\(host):\(server.parsed.port)"))
            configuration.turnServers.append(
                TURNServer(
                    address: ICETransportAddress(ip: address.address, port: address.port),
                    transport: server.parsed.transport == .tcp ? .tcp : .udp, username: username, password: password))
        }
        if options.transportPolicy == .relay, configuration.turnServers.isEmpty {
            throw VoiceError(.malformedRequest, failureReason: "the relay-only ICE policy needs a turn: server (over UDP or TCP)")
        }
    }
}
