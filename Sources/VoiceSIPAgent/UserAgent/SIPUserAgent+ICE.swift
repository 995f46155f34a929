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
    /// allocation (two for a dual allocation, IPv4 and IPv6, RFC 8656 §7.2). With the `.relay`
    /// policy, only the relayed ones. A media socket bound to the
    /// wildcard also has a host candidate on each of `otherHosts` (the host's other addresses,
    /// of either family: a `::` socket carries both). Host preferences follow RFC 8421: the
    /// families interleaved, IPv6 first, each family in the order given (`host` first of its
    /// own), so that a family whose path is dead delays the other's checks by one pacing step,
    /// not by all of its own.
    package static func iceParameters(
        host: String, port: UInt16, mapped: TransportAddress?, stunServer: TransportAddress?, relays: [ICECandidate] = [],
        policy: ICECandidatePolicy = .all, otherHosts: [String] = []
    ) -> SDPICEParameters {
        var random = SecureRandomNumberGenerator()
        let credentials = ICECredentials.random(using: &random)
        var candidates: [ICECandidate] = []
        if policy == .all, let main = IPAddress(host), !main.isUnspecified {
            var hosts = [main]
            for other in otherHosts {
                guard let ip = IPAddress(other), !ip.isUnspecified, !hosts.contains(ip) else { continue }
                hosts.append(ip)
            }
            let preferences = ICECandidate.localPreferences(interleaving: hosts)
            let base = TransportAddress(ip: main, port: port)
            let mainPreference = preferences[main] ?? 65_535
            candidates.append(.local(.host, address: base, base: base, localPreference: mainPreference))
            if let mapped, mapped.ip != main || mapped.port != port {
                candidates.append(.local(.serverReflexive, address: mapped, base: base, localPreference: mainPreference, server: stunServer))
            }
            for ip in hosts.dropFirst() {
                guard let preference = preferences[ip] else { continue }
                let base = TransportAddress(ip: ip, port: port)
                candidates.append(.local(.host, address: base, base: base, localPreference: preference))
            }
        }
        for var relay in relays {
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
