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

    /// How the candidate was found.
    public var candidateType: CandidateType
    /// Its IP address.
    public var address: String
    /// Its port.
    public var port: Int

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
