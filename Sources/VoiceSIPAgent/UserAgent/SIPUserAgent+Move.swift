import VoiceICE
import NIOCore
import VoiceSIP

extension SIPUserAgent {
    /// The host's other addresses, in order of preference, that calls from now on offer ICE
    /// host candidates on beside the advertised address (media bound to the wildcard only).
    package func setOtherMediaHosts(_ hosts: [String]) {
        jobs.execute { self.otherMediaHosts = hosts }
    }

    /// The address families the host has (a dual-stack listener, following the networks):
    /// server names are looked up for AAAA where it has IPv6, for A where it has IPv4, and a
    /// server with both is raced (RFC 8305).
    package func setAddressFamilies(ipv4: Bool, ipv6: Bool) {
        jobs.execute { self.addressFamilies = (ipv4, ipv6) }
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
    ///   address, its relayed candidate, offered in their ICE restart.
    package func moveLocalAddress(
        to host: String, port: Int? = nil, oldAddressGone: Bool = true, relays: [SIPCallHandle: ICECandidate] = [:]
    ) -> EventLoopFuture<[SIPCallHandle]> {
        jobs.flatSubmit {
            guard host != self.advertisedHost || port != self.advertisedPort else { return self.eventLoop.makeSucceededFuture([]) }
            let closed = oldAddressGone ? self.transport.closeAllConnections() : self.eventLoop.makeSucceededVoidFuture()
            return closed.map { self.move(to: host, port: port, relays: relays) }
        }
    }

    private func move(to host: String, port: Int?, relays: [SIPCallHandle: ICECandidate]) -> [SIPCallHandle] {
        advertisedHost = host
        advertisedPort = port
        let contact = contactURI
        let via = viaTemplate
        if var registration {
            let actions = registration.moveContact(contact, via: via, now: now)
            self.registration = registration
            performRegistration(actions)
        }
        var moved: [SIPCallHandle] = []
        for handle in calls.keys.sorted(by: { $0.id < $1.id }) {
            guard var call = calls[handle] else { continue }
            switch call.session.state {
            case .terminating, .terminated: continue
            default: break
            }
            // A DTLS-SRTP call restarts ICE from the new address (RFC 8445 §9), with the relay its
            // media allocated from there; relay only, with that alone (and as the SDP's address).
            let relay = relays[handle]
            let ice =
                call.session.capabilities.ice == nil
                ? nil
                : Self.iceParameters(
                    host: host, port: call.mediaPort, mapped: nil, stunServer: configuration.stunServer, relay: relay,
                    policy: configuration.candidatePolicy, otherHosts: otherMediaHosts)
            let mediaAddress = configuration.candidatePolicy == .relay ? relay?.address.ip.description ?? host : host
            let actions = call.session.moveLocalAddress(contact: contact, via: via, mediaAddress: mediaAddress, ice: ice, now: now)
            calls[handle] = call
            moved.append(handle)
            performCall(actions, handle: handle)
        }
        return moved
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
