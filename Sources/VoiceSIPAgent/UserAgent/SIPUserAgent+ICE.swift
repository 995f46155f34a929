import VoiceAddress
import VoiceSTUN
import VoiceICE
import VoiceNetwork
import VoiceSIP
import VoiceSupport

extension SIPUserAgent {
    /// A call's ICE credentials and candidates, gathered before its SDP is written (SIP carries
    /// them all at once: no trickle): the host candidate on the call's media port and, when the
    /// port's STUN mapping is known, the server-reflexive one, and the relayed one of its TURN
    /// allocation. With the `.relay` policy, only the relayed one. A media socket bound to the
    /// wildcard also has a host candidate on each of `otherHosts` (the host's other addresses
    /// of the same family, in order of preference, after `host`).
    package static func iceParameters(
        host: String, port: UInt16, mapped: TransportAddress?, stunServer: TransportAddress?, relay: ICECandidate? = nil,
        policy: ICECandidatePolicy = .all, otherHosts: [String] = []
    ) -> SDPICEParameters {
        var random = SecureRandomNumberGenerator()
        let credentials = ICECredentials.random(using: &random)
        var candidates: [ICECandidate] = []
        if policy == .all, let ip = IPAddress(host), !ip.isUnspecified {
            let base = TransportAddress(ip: ip, port: port)
            candidates.append(.local(.host, address: base, base: base))
            if let mapped, mapped.ip != ip || mapped.port != port {
                let server = stunServer
                candidates.append(
                    .local(.serverReflexive, address: mapped, base: base, server: server))
            }
        }
        if policy == .all, let main = IPAddress(host), !main.isUnspecified {
            var preference: UInt16 = 65_535
            for other in otherHosts {
                guard let ip = IPAddress(other), ip != main, !ip.isUnspecified, ip.isIPv6 == main.isIPv6, preference > 256,
                    !candidates.contains(where: { $0.address.ip == ip })
                else { continue }
                preference -= 256
                let base = TransportAddress(ip: ip, port: port)
                candidates.append(.local(.host, address: base, base: base, localPreference: preference))
            }
        }
        if var relay {
            // Relay only hides the host's addresses, the NAT's too: no related address (RFC 8828's spirit).
            if policy == .relay, let any = IPAddress(relay.address.ip.isIPv6 ? "::" : "0.0.0.0") {
                relay.relatedAddress = TransportAddress(ip: any, port: 0)
            }
            candidates.append(relay)
        }
        return SDPICEParameters(
            usernameFragment: credentials.usernameFragment, password: credentials.password,
            candidates: candidates.map(SDPICECandidate.init), endOfCandidates: true)
    }
}

extension SDPEncryptionPolicy {
    /// Whether our offers use DTLS-SRTP (and so need ICE credentials and candidates).
    package var usesDTLS: Bool {
        switch self {
        case .dtlsSRTP, .automatic: true
        case .srtp, .unencrypted: false
        }
    }
}
