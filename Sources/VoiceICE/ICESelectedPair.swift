import VoiceAddress

/// The candidate pair a path selected, as stats name it: each side's candidate type and
/// address (`host 10.0.0.2:4000 -> srflx 203.0.113.9:5000`).
package struct ICESelectedPair: Hashable, Sendable, CustomStringConvertible {
    package var localKind: ICECandidate.Kind
    package var local: TransportAddress
    package var remoteKind: ICECandidate.Kind
    package var remote: TransportAddress

    package init(localKind: ICECandidate.Kind, local: TransportAddress, remoteKind: ICECandidate.Kind, remote: TransportAddress) {
        self.localKind = localKind
        self.local = local
        self.remoteKind = remoteKind
        self.remote = remote
    }

    package init(_ pair: ICECandidatePair) {
        self.init(localKind: pair.local.kind, local: pair.local.address, remoteKind: pair.remote.kind, remote: pair.remote.address)
    }

    package var description: String { "\(localKind.rawValue) \(local) -> \(remoteKind.rawValue) \(remote)" }
}
