import Logging
import VoiceICE
import VoiceNetwork
import VoiceSIPAgent

extension VoiceClient {
    /// Puts the ICE options into the agent's configuration: the first `turn:` server over UDP
    /// (resolved now) for relayed candidates, a `stun:` server when no STUN server is set,
    /// and the policy.
    /// - Throws: ``VoiceError`` 31009 (``VoiceError/Code/transportError``) when a server's
    ///   host cannot be resolved, or 31100 when the relay-only policy has no TURN server it can use.
    static func applyICEOptions(_ options: ICEOptions, to configuration: inout SIPUserAgentConfiguration, logger: Logger) throws(VoiceError) {
        configuration.candidatePolicy = options.transportPolicy == .relay ? .relay : .all
        for server in options.servers where !server.isTURN && configuration.stunServer == nil {
            guard server.parsed.scheme == .stun else { continue }
            configuration.stunServer = try resolveSTUNServer(try STUNServerAddress("\(server.parsed.host.contains(":") ? "[\(server.parsed.host)]" : server.parsed.host):\(server.parsed.port)"))
        }
        let turn = options.servers.first { $0.isTURN && $0.parsed.transport == .udp && !$0.parsed.usesTLS }
        for server in options.servers where server.isTURN && server != turn {
            logger.warning("ICE server \(server) is not used: only the first TURN server over UDP is")
        }
        if let turn, let username = turn.username, let password = turn.password {
            let host = turn.parsed.host.contains(":") ? "[\(turn.parsed.host)]" : turn.parsed.host
            let address = try resolveSTUNServer(try STUNServerAddress("\(host):\(turn.parsed.port)"))
            configuration.turnServer = TURNServer(
                address: ICETransportAddress(ip: address.address, port: address.port), username: username, password: password)
        }
        if options.transportPolicy == .relay, configuration.turnServer == nil {
            throw VoiceError(.malformedRequest, failureReason: "the relay-only ICE policy needs a turn: server reached over UDP")
        }
    }
}
