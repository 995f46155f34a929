import VoiceAddress
import VoiceICE
import NIOCore
import VoiceSIP

extension SIPUserAgent {
    /// The host's other addresses, in order of preference, that calls from now on offer ICE
    /// host candidates on beside the advertised address (media bound to the wildcard only).
    package func setOtherMediaHosts(_ hosts: [String]) {
        jobs.execute { self.otherMediaHosts = hosts }
    }

    /// The host's preferred address in each family it has, nil for a family it lacks (a
    /// dual-stack listener, following the networks): server names are looked up for AAAA where
    /// it has IPv6, for A where it has IPv4, and a server with both is raced (RFC 8305); each
    /// message names us by the address of its hop's family (``SIPHopAddressing``).
    /// When the address of the family not advertised changes, what named the old one follows
    /// (see ``followRenumbering(from:)``).
    package func setHostAddresses(ipv4: IPAddress?, ipv6: IPAddress?) {
        jobs.execute {
            let before = self.hostAddresses
            self.hostAddresses = (ipv4, ipv6)
            self.followRenumbering(from: before)
        }
    }

    /// The host's address in the family other than the advertised one changed (an IPv6 prefix
    /// renumbered while IPv4 stayed, say). Messages over that family named the old address
    /// (``SIPHopAddressing``), so each call whose signaling goes over it re-INVITEs with the new
    /// one as its media address (a new SDP version; relay only keeps its relayed address), and
    /// the registration is refreshed: both then name the new address. ICE is not restarted:
    /// its relayed and reflexive candidates still stand, and the media path checks from the
    /// new address by itself (``VoiceClient`` tells the streams). The old address's binding at
    /// the registrar is left to expire.
    /// A move of the advertised address itself is ``moveLocalAddress(to:port:oldAddressGone:relays:)``'s.
    private func followRenumbering(from before: (ipv4: IPAddress?, ipv6: IPAddress?)?) {
        guard let before, let after = hostAddresses, let hopAddressing, let host = advertisedHost else { return }
        let otherIsIPv6 = !hopAddressing.advertised.isIPv6
        let (old, new) = otherIsIPv6 ? (before.ipv6, after.ipv6) : (before.ipv4, after.ipv4)
        guard let old, let new, old != new else { return }
        logger.notice("network: \(old) renumbered to \(new); what went over it follows")
        let overIt: (SIPTransportEndpoint) -> Bool = { IPAddress($0.host)?.isIPv6 == otherIsIPv6 }
        let contact = contactURI
        let via = viaTemplate
        for handle in calls.keys.sorted(by: { $0.id < $1.id }) {
            guard let call = calls[handle], call.requestPeers.contains(where: overIt) || call.invitePeer.map(overIt) == true else { continue }
            let mediaAddress = configuration.candidatePolicy == .relay ? call.session.capabilities.address : new.description
            moveCall(handle, contact: contact, via: via, host: host, relays: [], restartsICE: false, mediaAddress: mediaAddress)
        }
        refreshRegistrationOnLoop()
    }

    /// Our host changed networks and now has `host` (with a wildcard listen address): Contact,
    /// Via and SDP carry it from now on. The registration rebinds at once (removing the old
    /// Contact), and every call that is not ending tells its peer with a re-INVITE, at once or
    /// as soon as it is confirmed (``SIPInviteSession/moveLocalAddress(contact:via:mediaAddress:now:)``);
    /// their outcomes arrive as the usual call events (`mediaUpdated`, or a hold/resume failure).
    /// Nothing is sent when `host` (and `port`, a NAT's SIP port from STUN, nil for the bound
    /// one) is what is already advertised. When the old address is gone (`oldAddressGone`), TCP
    /// and TLS connections are closed first (they were bound to it and are dead, though they may
    /// not say so for minutes); the requests open new ones. When it is still there (a better
    /// network appeared), they stay: they work, and a request in progress on one (an INVITE
    /// still ringing) goes on.
    /// - Returns: The calls that were told (or will be), on the loop.
    @discardableResult
    /// - Parameter relays: for calls whose media allocated a new TURN relay from the new
    ///   address, its relayed candidates (the first the relay's primary address), offered in
    ///   their ICE restart.
    package func moveLocalAddress(
        to host: String, port: Int? = nil, oldAddressGone: Bool = true, relays: [SIPCallHandle: [ICECandidate]] = [:]
    ) -> EventLoopFuture<[SIPCallHandle]> {
        jobs.flatSubmit {
            guard host != self.advertisedHost || port != self.advertisedPort else { return self.eventLoop.makeSucceededFuture([]) }
            let closed = oldAddressGone ? self.transport.closeAllConnections() : self.eventLoop.makeSucceededVoidFuture()
            return closed.map { self.move(to: host, port: port, relays: relays) }
        }
    }

    private func move(to host: String, port: Int?, relays: [SIPCallHandle: [ICECandidate]]) -> [SIPCallHandle] {
        advertisedHost = host
        advertisedPort = port
        let contact = contactURI
        let via = viaTemplate
        if var registration {
            let actions = registration.moveContact(contact, via: via, now: now)
            self.registration = registration
            performRegistration(actions)
        }
        return calls.keys.sorted(by: { $0.id < $1.id }).filter { handle in
            moveCall(handle, contact: contact, via: via, host: host, relays: relays[handle] ?? [])
        }
    }

    /// Tells the peer of one call that is not ending our new Contact, Via and media address;
    /// false for a call that is ending. A DTLS-SRTP call restarts ICE from the new address
    /// (RFC 8445 §9), with the relay its media allocated from there; relay only, with that
    /// alone (and as the SDP's address). `mediaAddress`, when given, is the SDP's address.
    @discardableResult
    private func moveCall(
        _ handle: SIPCallHandle, contact: SIPURI, via: SIPVia, host: String, relays: [ICECandidate], restartsICE: Bool = true,
        mediaAddress given: String? = nil
    ) -> Bool {
        guard var call = calls[handle] else { return false }
        switch call.session.state {
        case .terminating, .terminated: return false
        default: break
        }
        let ice =
            call.session.capabilities.ice == nil || !restartsICE
            ? nil
            : Self.iceParameters(
                host: host, port: call.mediaPort, mapped: nil, stunServer: configuration.stunServer, relays: relays,
                policy: configuration.candidatePolicy, otherHosts: otherMediaHosts)
        let mediaAddress = given ?? (configuration.candidatePolicy == .relay ? relays.first?.address.ip.description ?? host : host)
        let actions = call.session.moveLocalAddress(contact: contact, via: via, mediaAddress: mediaAddress, ice: ice, now: now)
        calls[handle] = call
        performCall(actions, handle: handle)
        return true
    }

    /// The Contact URI our requests and answers carry now.
    package var advertisedContact: EventLoopFuture<String> { jobs.submit { self.contactURI.description } }

    /// The address Contact, Via and SDP carry now.
    package var currentAdvertisedHost: EventLoopFuture<String> {
        eventLoop.submit { self.advertisedHost ?? self.localEndpoint?.host ?? self.configuration.listenHost }
    }
}

extension SIPUserAgent {
    /// Refreshes the registration now (when one is wanted), e.g. after the network came back.
    package func refreshRegistration() {
        jobs.execute { self.refreshRegistrationOnLoop() }
    }

    /// Sends a REGISTER now when a binding is wanted; false when none is (never registered,
    /// unregistered, or failed for good). On the loop.
    @discardableResult
    func refreshRegistrationOnLoop() -> Bool {
        guard var registration else { return false }
        switch registration.state {
        case .idle, .unregistered, .unregistering, .failed: return false
        default: break
        }
        let actions = registration.register(now: now)
        self.registration = registration
        performRegistration(actions)
        return true
    }
}
