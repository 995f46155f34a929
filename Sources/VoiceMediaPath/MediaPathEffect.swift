import VoiceDTLSTypes
import VoiceICE
import VoiceAddress

extension MediaPath {
    /// What the driver does for the path.
    package enum Effect: Sendable {
        /// A datagram, from a local address when the socket is bound to the wildcard (an ICE
        /// base: replies and media must come from the address the peer checked).
        case send([UInt8], to: TransportAddress, from: TransportAddress? = nil)
        /// A datagram for the TURN server (``MediaPath/relayServer``), over whichever transport
        /// reaches it.
        case sendToRelay([UInt8])
        /// The stream's RTP and RTCP now go along this route.
        case route(MediaRoute)
        /// Something for the DTLS association; what it answers comes back through
        /// ``MediaPath/dtlsSaid(_:now:)``.
        case dtls(DTLSCommand)
        /// Install SRTP with these keys, then say ``MediaPath/keysInstalled(now:)`` (or
        /// ``MediaPath/keysRefused(_:)`` when the SRTP library will not take them).
        case protect(DTLSSRTPKeys)
        /// The TURN server bound `channel` for `peer`: RTP to and from the peer goes as ChannelData.
        case channelBound(UInt16, peer: TransportAddress)
        /// The channels are gone (the path moved to a new allocation after the host moved).
        case channelsCleared
        /// For the stream's owner.
        case event(MediaPathEvent)
    }

    /// What the path asks of the DTLS association.
    package enum DTLSCommand: Sendable, Equatable {
        /// Start the handshake (a client sends its ClientHello, a server waits).
        case start
        /// A datagram from the peer, on the proven path.
        case receive([UInt8])
    }
}

/// What the path reports to the stream's owner.
package enum MediaPathEvent: Sendable, Equatable {
    /// ICE selected `pair` (nil without ICE: `destination`) and DTLS keyed SRTP (`security`).
    case connected(pair: ICESelectedPair?, destination: TransportAddress, security: String)
    /// The path failed: the call has no audio.
    case failed(MediaPathFailure)
    /// The peer stopped answering consent checks (RFC 7675): nothing is sent until it answers again.
    case consentLost
    /// Consent came back.
    case consentRestored
    /// The new TURN allocation asked for as `request` gave these relayed candidates (one per
    /// family of a dual allocation; none: no allocation).
    case relayReallocated(request: Int, candidates: [ICECandidate])
}

/// Where a stream's media goes and from where.
package struct MediaRoute: Hashable, Sendable {
    /// The peer's address: the selected pair's remote, or the signaled address without ICE.
    package var destination: TransportAddress
    /// The local address media leaves from: the selected pair's base (not relayed), which a
    /// socket bound to the wildcard must name, or the kernel may pick another of the host's
    /// addresses and the peer would not recognise us (RFC 8445 §7.2.5.2.1: responses must be
    /// symmetric). Nil lets the kernel choose.
    package var source: TransportAddress?
    /// Whether the route runs through the TURN server (the selected pair is the relayed candidate's).
    package var viaRelay: Bool

    package init(destination: TransportAddress, source: TransportAddress? = nil, viaRelay: Bool = false) {
        self.destination = destination
        self.source = source
        self.viaRelay = viaRelay
    }
}
