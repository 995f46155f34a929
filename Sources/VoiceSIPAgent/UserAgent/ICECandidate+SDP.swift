import VoiceAddress
import VoiceDNS
import VoiceICE
import VoiceNetwork
import VoiceSIP

extension SDPICECandidate {
    /// The `a=candidate` line of one of our candidates (UDP; reflexive and relayed ones with
    /// their related address).
    package init(_ candidate: ICECandidate) {
        // Both name the types as SDP does (host, srflx, prflx, relay).
        let kind = Kind(rawValue: candidate.kind.rawValue) ?? .host
        self.init(
            foundation: candidate.foundation, component: candidate.component, transport: "UDP", priority: candidate.priority,
            address: candidate.address.ip.description, port: candidate.address.port, kind: kind,
            relatedAddress: candidate.relatedAddress?.ip.description, relatedPort: candidate.relatedAddress?.port)
    }
}

extension SDPICECandidate {
    /// The mDNS name a UDP candidate hides its address behind (a browser's `<uuid>.local`,
    /// RFC 8828), when it is one we ask the link for (see ``MulticastDNSLookup/isResolvable(_:)``).
    package var multicastDNSName: String? {
        guard isUDP, port != 0, MulticastDNSLookup.isResolvable(address) else { return nil }
        return address
    }
}

extension ICECandidate {
    /// A peer's candidate from its SDP, or nil for one we cannot use: TCP (we check over UDP
    /// only), a name (an mDNS `.local` one comes through ``init(remote:resolvedAddress:)`` once
    /// resolved; other host names RFC 8839 allows are not resolved), port 0, or an RTCP
    /// component when RTP and RTCP share one port.
    package init?(remote candidate: SDPICECandidate) {
        guard let ip = IPAddress(candidate.address) else { return nil }
        self.init(remote: candidate, at: ip)
    }

    /// A peer's `.local` candidate at the address its name resolved to: the SDP's kind,
    /// priority, foundation and component, so that checks and the selected pair read as the
    /// host candidate it is.
    package init?(remote candidate: SDPICECandidate, resolvedAddress: IPAddress) {
        guard candidate.multicastDNSName != nil else { return nil }
        self.init(remote: candidate, at: resolvedAddress)
    }

    private init?(remote candidate: SDPICECandidate, at ip: IPAddress) {
        guard candidate.isUDP, candidate.port != 0, !ip.isUnspecified else { return nil }
        let address = TransportAddress(ip: ip, port: candidate.port)
        let kind = Kind(rawValue: candidate.kind.rawValue) ?? .host
        var related: TransportAddress?
        if let raddr = candidate.relatedAddress.flatMap(IPAddress.init), let rport = candidate.relatedPort {
            related = TransportAddress(ip: raddr, port: rport)
        }
        self.init(
            kind: kind, component: candidate.component, address: address, base: address, priority: candidate.priority,
            foundation: candidate.foundation, relatedAddress: related)
    }
}
