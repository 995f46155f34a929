import VoiceAddress

/// An agent's candidates and pairs as W3C webrtc-stats lists them: `RTCIceCandidateStats` for
/// each side's candidates, `RTCIceCandidatePairStats` for each pair of the check list.
package struct ICEStatistics: Hashable, Sendable {
    package var localCandidates: [ICECandidate]
    package var remoteCandidates: [ICECandidate]
    /// The check list's pairs, highest priority first.
    package var pairs: [ICEPairStats]
    /// Our role, which the pairs' priorities depend on.
    package var localIsControlling: Bool

    package init(
        localCandidates: [ICECandidate] = [], remoteCandidates: [ICECandidate] = [], pairs: [ICEPairStats] = [], localIsControlling: Bool = true
    ) {
        self.localCandidates = localCandidates
        self.remoteCandidates = remoteCandidates
        self.pairs = pairs
        self.localIsControlling = localIsControlling
    }
}

/// What media (RTP, RTCP, DTLS; not ICE's checks) a candidate pair carried, in datagrams and
/// their bytes (UDP payloads: W3C's pair `bytesSent`/`bytesReceived`).
package struct ICEPairTraffic: Hashable, Sendable {
    package var packetsSent: UInt64 = 0
    package var bytesSent: UInt64 = 0
    package var packetsReceived: UInt64 = 0
    package var bytesReceived: UInt64 = 0

    package init() {}

    package mutating func sent(_ bytes: Int) {
        packetsSent &+= 1
        bytesSent &+= UInt64(bytes)
    }

    package mutating func received(_ bytes: Int) {
        packetsReceived &+= 1
        bytesReceived &+= UInt64(bytes)
    }
}

/// A candidate pair by its two addresses: our base and the peer's address.
package struct ICEPairAddresses: Hashable, Sendable {
    package var local: TransportAddress
    package var remote: TransportAddress

    package init(local: TransportAddress, remote: TransportAddress) {
        self.local = local
        self.remote = remote
    }

    package init(_ pair: ICECandidatePair) { self.init(local: pair.local.base, remote: pair.remote.address) }
}

/// Which pair carried how much: the pair selected now, and those selected before it (an ICE
/// restart, a renomination) with what they carried while they were. Media that went before
/// any pair was selected (a handshake the peer started over the address it proved) counts
/// toward the first pair selected.
package struct ICETrafficLedger: Hashable, Sendable {
    package private(set) var current: ICEPairAddresses?
    package private(set) var currentTraffic = ICEPairTraffic()
    package private(set) var earlier: [ICEPairAddresses: ICEPairTraffic] = [:]

    package init() {}

    /// Media now goes over `pair`: what the pair before carried is put by.
    package mutating func select(_ pair: ICEPairAddresses) {
        guard pair != current else { return }
        if let current { earlier[current] = currentTraffic }
        if current != nil { currentTraffic = earlier.removeValue(forKey: pair) ?? ICEPairTraffic() }
        current = pair
    }

    package mutating func sent(_ bytes: Int) { currentTraffic.sent(bytes) }
    package mutating func received(_ bytes: Int) { currentTraffic.received(bytes) }

    /// What `pair` carried.
    package func traffic(of pair: ICEPairAddresses) -> ICEPairTraffic {
        pair == current ? currentTraffic : earlier[pair] ?? ICEPairTraffic()
    }
}
