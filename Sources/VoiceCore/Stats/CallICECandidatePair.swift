import VoiceICE

/// The ICE candidate pair a call's media travels on, as WebRTC's `RTCIceCandidatePairStats`
/// names its two ends.
public struct CallICECandidatePair: Hashable, Sendable, CustomStringConvertible {
    /// Our end.
    public var local: CallICECandidate
    /// The peer's end.
    public var remote: CallICECandidate

    package init(_ pair: ICESelectedPair) {
        local = CallICECandidate(kind: pair.localKind, address: pair.local.ip.description, port: Int(pair.local.port))
        remote = CallICECandidate(kind: pair.remoteKind, address: pair.remote.ip.description, port: Int(pair.remote.port))
    }

    init(local: CallICECandidate, remote: CallICECandidate) {
        self.local = local
        self.remote = remote
    }

    /// `host 10.0.0.2:40000 -> srflx 203.0.113.9:5000`.
    public var description: String { "\(local) -> \(remote)" }
}

/// One end of an ICE candidate pair, as WebRTC's `RTCIceCandidateStats` names it.
public struct CallICECandidate: Hashable, Sendable, CustomStringConvertible {
    /// How the candidate was found.
    public enum CandidateType: Hashable, Sendable {
        /// An address of the host itself.
        case host
        /// The address a NAT gave us, learned from a STUN server (`srflx`).
        case serverReflexive
        /// An address learned from a connectivity check (`prflx`).
        case peerReflexive
        /// A TURN relay's address (`relay`).
        case relayed
    }

    /// How we reach the TURN server a relayed candidate of ours is on (W3C's `relayProtocol`).
    public enum RelayProtocol: String, Hashable, Sendable {
        /// `turn:` over UDP.
        case udp
        /// `turn:…?transport=tcp`.
        case tcp
        /// `turns:`, TLS over TCP.
        case tls
    }

    /// How the candidate was found (`candidateType`).
    public var candidateType: CandidateType
    /// Its IP address (`address`).
    public var address: String
    /// Its port (`port`).
    public var port: Int
    /// The transport media travels on from or to it (`protocol`): "udp", the only one this SDK
    /// pairs.
    public var transportProtocol = "udp"
    /// Its ICE priority (`priority`, RFC 8445 §5.1.2); nil where only its address is known.
    public var priority: UInt32?
    /// Its foundation (`foundation`); nil where only its address is known.
    public var foundation: String?
    /// For a relayed candidate of ours, how the TURN server is reached (`relayProtocol`); nil
    /// for any other candidate.
    public var relayProtocol: RelayProtocol?

    init(kind: ICECandidate.Kind, address: String, port: Int) {
        switch kind {
        case .host: candidateType = .host
        case .serverReflexive: candidateType = .serverReflexive
        case .peerReflexive: candidateType = .peerReflexive
        case .relayed: candidateType = .relayed
        }
        self.address = address
        self.port = port
    }

    /// The stats of `candidate`; `relay` is how our TURN server is reached, for a local relayed one.
    init(_ candidate: ICECandidate, relay: TURNServer.Transport? = nil) {
        self.init(kind: candidate.kind, address: candidate.address.ip.description, port: Int(candidate.address.port))
        priority = candidate.priority
        foundation = candidate.foundation
        if candidate.kind == .relayed, let relay {
            switch relay {
            case .udp: relayProtocol = .udp
            case .tcp: relayProtocol = .tcp
            case .tls: relayProtocol = .tls
            }
        }
    }

    /// `srflx 203.0.113.9:5000`, the SDP's type names.
    public var description: String {
        let type: String
        switch candidateType {
        case .host: type = "host"
        case .serverReflexive: type = "srflx"
        case .peerReflexive: type = "prflx"
        case .relayed: type = "relay"
        }
        return address.contains(":") ? "\(type) [\(address)]:\(port)" : "\(type) \(address):\(port)"
    }
}
