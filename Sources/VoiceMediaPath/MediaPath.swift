import VoiceAddress
import VoiceDTLSTypes
import VoiceICE
import VoiceMediaTypes
import VoiceSupport

/// A stream's WebRTC media path as a value: the ICE agent that finds and keeps the path
/// (connectivity checks, nomination, consent, restarts), the TURN relay it may run through, and
/// where DTLS-SRTP's handshake and keys fit in. It takes events (datagrams the driver classified
/// by RFC 7983's first-byte rule, the clock's ticks, what the DTLS association said) and returns
/// ``Effect``s; it owns no socket, no thread and no C library. The DTLS association itself
/// (OpenSSL) and the SRTP session (libsrtp) are the driver's: the path says when to start,
/// feed and close the one and when to install the other, and hears back what they did.
///
/// Until the keys are installed nothing of the stream's RTP or RTCP may be sent or played
/// (``gate``); while consent is lost nothing is sent. DTLS is taken only from the selected
/// path, or before one is selected from an address the peer proved with an authenticated check
/// (an off-path intruder cannot break the handshake with a stray hello).
///
/// With a TURN relay (RFC 8656) the relayed candidate is one more local base: checks from it,
/// and everything once a relayed pair is selected, go to the TURN server wrapped (ChannelData
/// once the peer's channel is bound, a Send indication before), and what the server relays
/// comes back unwrapped with the peer as its source. The driver wraps and unwraps RTP in place
/// with the channels the path reports (``Effect/channelBound(_:peer:)``).
package struct MediaPath: Sendable {
    /// Where the path is in its life.
    package enum Phase: Sendable {
        /// Made, not started: the agent has the peer's parameters, and what it said then is
        /// carried out at ``MediaPath/start(now:)`` (a check list that cannot form fails the path
        /// there). A datagram that comes first starts the path.
        case ready(agentSaid: [ICEAgentAction])
        /// ICE checks for a first path; no DTLS yet.
        case checking
        /// The DTLS handshake runs over `route` (ICE selected it, the peer's handshake came over
        /// a proven address first, or without ICE the signaled address). The association is
        /// started on entering this phase, and runs in it and the two after it.
        case keying(MediaRoute)
        /// The handshake gave keys; the driver is installing them (``MediaPath/keysInstalled(now:)``).
        case installingKeys(MediaRoute, DTLSSRTPKeys)
        /// Media flows over `route`, protected with `suite`.
        case keyed(MediaRoute, SRTPSuite)
        /// The call ended the path (close_notify sent, the allocation given back).
        case closed
        /// The path failed: the call has no audio.
        case failed(MediaPathFailure)
    }

    /// The ICE agent's part.
    enum ICERun: Sendable {
        /// The peer does no ICE: media and DTLS go to the address its SDP gave.
        case direct(TransportAddress)
        /// The first checks: nothing selected yet.
        case checking(ICEAgent)
        /// An ICE restart's new agent: media goes on over the route in force, and moves to the
        /// first pair the new agent validates, without waiting for its nomination (make before
        /// break: the old path is usually gone, the host moved).
        case restarting(ICEAgent)
        /// A pair is selected and the peer keeps granting consent (RFC 7675).
        case selected(ICEAgent)
        /// A pair is selected but consent expired: nothing is sent until it comes back.
        case consentLost(ICEAgent)
    }

    package internal(set) var phase: Phase
    var ice: ICERun
    /// The TURN allocation the port's relayed candidate is on; nil without a relay.
    var relay: RelayAllocation?
    var reallocation = Reallocation.none
    /// Whether checks straight to the port are answered: not when our candidates are relayed
    /// only (the relay-only policy), which would reveal the host's address.
    var answersDirectChecks = true
    /// The ICE base checks arrive on: the host candidate on the stream's port (the socket may
    /// be bound to the wildcard), else the socket's own address.
    var base: TransportAddress
    let localAddress: TransportAddress
    let iceConfiguration: ICEAgentConfiguration
    /// The host's addresses datagrams came to (a wildcard socket's `IP_PKTINFO`): a base is
    /// named as the source only once it is one of them. A candidate can carry an address the
    /// host does not have (a NAT's, learned for signaling), and a datagram sent "from" it
    /// would leave with a forged source.
    var localAddressesSeen: [IPAddress] = []
    /// The path's figures for the stream's stats.
    package internal(set) var figures = MediaPathFigures()

    /// A path for a stream on `localAddress`. With `remoteICE` the peer's parameters go to the
    /// agent now, so that checks read before the first tick (the peer's may come first) are
    /// answered and remembered in full, nomination included. Without it media and DTLS go to
    /// `signaledRemote`.
    package init(
        localCredentials: ICECredentials, localCandidates: [ICECandidate], isControlling: Bool, remoteICE: RemoteICE?,
        configuration: ICEAgentConfiguration, relay: TURNRelay?, localAddress: TransportAddress, signaledRemote: TransportAddress
    ) {
        self.localAddress = localAddress
        iceConfiguration = configuration
        base = Self.base(of: localCandidates, on: localAddress)
        if let relay {
            // A relay with a connection is over a stream, whatever its server said.
            let transport = relay.connection != nil && relay.transport == .udp ? TURNServer.Transport.tcp : relay.transport
            self.relay = RelayAllocation(client: relay.client, relayed: relay.relayed, server: relay.server, transport: transport)
            figures.relayTransport = transport
            answersDirectChecks = localCandidates.contains { $0.kind != .relayed }
        }
        if let remote = remoteICE {
            var agent = ICEAgent(
                configuration: configuration, credentials: localCredentials, candidates: localCandidates,
                isControlling: isControlling, random: SecureRandomNumberGenerator())
            let said = agent.setRemote(
                credentials: remote.credentials, candidates: remote.candidates, isLite: remote.isLite,
                moreCandidatesComing: remote.moreCandidatesComing, now: .zero)
            figures.remoteCandidates = remote.candidates.count
            figures.show(agent)
            ice = .checking(agent)
            phase = .ready(agentSaid: said)
        } else {
            ice = .direct(signaledRemote)
            phase = .ready(agentSaid: [])
        }
    }

    // MARK: - What the driver asks

    /// Whether the peer does ICE (a signaled address is then only a candidate, not the path).
    package var usesICE: Bool {
        if case .direct = ice { false } else { true }
    }

    /// What may pass for the stream's RTP and RTCP, in and out: nothing before the keys are
    /// installed; nothing out while consent is lost.
    package var gate: MediaGate {
        guard case .keyed(let route, _) = phase else { return .shut }
        if case .consentLost = ice { return .receiveOnly }
        return route.viaRelay ? .openViaRelay : .open
    }

    /// Whether a handshake is under way: ICE checking for a first path (or a new one after a
    /// restart), or DTLS keying. Its datagrams are then worth handling the moment they arrive.
    package var isSettingUp: Bool {
        switch phase {
        case .ready, .checking, .keying, .installingKeys: true
        case .keyed: if case .restarting = ice { true } else { false }
        case .closed, .failed: false
        }
    }

    /// Whether the DTLS association runs (started, not failed or closed): the driver ticks it.
    package var runsDTLS: Bool { route != nil }

    /// Why the path failed, if it did.
    package var failure: MediaPathFailure? {
        if case .failed(let why) = phase { why } else { nil }
    }

    /// The TURN server's address, where relayed traffic goes; nil without a relay.
    package var relayServer: TransportAddress? { relay?.server }

    /// The route media takes, once there is one.
    package var route: MediaRoute? {
        switch phase {
        case .keying(let route), .installingKeys(let route, _), .keyed(let route, _): route
        case .ready, .checking, .closed, .failed: nil
        }
    }

    /// RTP or RTCP that came before the keys: not played (it could not be authenticated).
    package mutating func countDroppedBeforeKeys() { figures.packetsBeforeKeys += 1 }

    /// The driver sent media (RTP, RTCP, DTLS) of `bytes` over the route: counted for the pair
    /// that carries it.
    package mutating func countSent(_ bytes: Int) { figures.traffic.sent(bytes) }

    /// Media of `bytes` came from the peer.
    package mutating func countReceived(_ bytes: Int) { figures.traffic.received(bytes) }
}

/// What may pass for the stream's RTP and RTCP (``MediaPath/gate``).
package enum MediaGate: Equatable, Sendable {
    /// Nothing: the keys are not in, or the path ended.
    case shut
    /// Consent expired: what arrives is played, nothing is sent.
    case receiveOnly
    /// Media goes straight to the peer (from the route's source).
    case open
    /// Media goes through the TURN server, which the path's ``MediaPath/relayServer`` names.
    case openViaRelay

    /// Whether media may be sent.
    package var sends: Bool {
        switch self {
        case .open, .openViaRelay: true
        case .shut, .receiveOnly: false
        }
    }

    /// Whether received media may be played.
    package var receives: Bool { self != .shut }
}
