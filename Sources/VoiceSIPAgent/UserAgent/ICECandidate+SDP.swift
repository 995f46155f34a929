import VoiceAddress
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

extension ICECandidate {
    /// A peer's candidate from its SDP, or nil for one we cannot use: TCP (we check over UDP
    /// only), an mDNS `.local` name or another host name (RFC 8839 allows them; we do not
    /// resolve them), port 0, or an RTCP component when RTP and RTCP share one port.
    package init?(remote candidate: SDPICECandidate) {
        guard candidate.isUDP, candidate.port != 0, let ip = IPAddress(candidate.address), !ip.isUnspecified else { return nil }
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
