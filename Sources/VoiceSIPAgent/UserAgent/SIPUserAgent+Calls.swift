import VoiceICE
import NIOCore
import VoiceMediaTypes
import VoiceSupport
import VoiceSIP

extension SIPUserAgent {
    // MARK: - Public call control

    /// Places a call to `remote` with an SDP offer. Extra headers (e.g. `X-` headers) go on the INVITE.
    /// - Parameters:
    ///   - codecs: Codecs to offer for this call, most preferred first; nil offers the configured ones.
    ///   - credentials: Credentials for this call's challenges (e.g. a Bearer token), tried before the configured ones.
    /// - Returns: The call's handle; its progress arrives as ``SIPUserAgentEvent/call(_:_:)`` events.
    package func call(
        _ remote: SIPURI, displayName: String? = nil, headers: [(String, String)] = [], codecs: [MediaCodec]? = nil,
        credentials: [SIPAuthCredentials] = []
    ) -> EventLoopFuture<SIPCallHandle> {
        let headers = headers.map { SIPHeaderPair(name: $0.0, value: $0.1) }
        return jobs.flatSubmit { () -> EventLoopFuture<ReservedMediaPort> in
            guard self.mayExchangeKeys(callingTo: remote) else {
                return self.eventLoop.makeFailedFuture(SIPUserAgentError.keysNeedProtectedSignaling)
            }
            return self.reserveMediaPort()
        }.map { (media: ReservedMediaPort) -> SIPCallHandle in
            var rng = SecureRandomNumberGenerator()
            var configuration = self.sessionConfiguration(mediaPort: media.port)
            configuration.capabilities.encryption = self.encryptionPolicy(callingTo: remote)
            if let codecs, !codecs.isEmpty { configuration.capabilities.codecs = codecs }
            configuration.credentials = credentials + configuration.credentials
            var session = SIPInviteSession(
                outgoingTo: SIPNameAddress(displayName: displayName, uri: remote), requestURI: remote,
                extraHeaders: headers.map { ($0.name, $0.value) }, configuration: configuration,
                using: &rng)
            let actions = session.start(now: self.now)
            let handle = self.register(session, media: media)
            self.performCall(actions, handle: handle)
            return handle
        }
    }

    /// The local RTP port of a call (what its SDP announces).
    package func mediaPort(of handle: SIPCallHandle) -> EventLoopFuture<UInt16?> {
        eventLoop.submit { self.calls[handle]?.mediaPort }
    }

    /// A call's reserved media ports (what its SDP announces), for its media to take over.
    package func reservedMedia(of handle: SIPCallHandle) -> EventLoopFuture<ReservedMediaPort?> {
        eventLoop.submit { self.calls[handle]?.media }
    }

    /// Takes a call's TURN relay, for its media to drive from now on (nil: none, or taken).
    /// Call only on ``eventLoop``.
    package func takeMediaRelay(_ handle: SIPCallHandle) -> TURNRelay? {
        eventLoop.preconditionInEventLoop()
        defer { calls[handle]?.relay = nil }
        return calls[handle]?.relay
    }

    /// A call's ICE credentials and candidates (DTLS-SRTP calls), as its SDP carries them.
    package func localICE(of handle: SIPCallHandle) -> EventLoopFuture<SDPICEParameters?> {
        eventLoop.submit { self.calls[handle]?.session.capabilities.ice }
    }

    /// Sends 180 Ringing for an incoming call.
    package func ring(_ handle: SIPCallHandle) { mutateCall(handle) { $0.ring(now: $1) } }

    /// Answers an incoming call with 200 OK and the SDP answer; `codecs` (most preferred first)
    /// replaces the configured codec preference for this call.
    package func accept(_ handle: SIPCallHandle, codecs: [MediaCodec]? = nil) {
        mutateCall(handle) { session, now in
            if let codecs, !codecs.isEmpty { session.capabilities.codecs = codecs }
            return session.accept(now: now)
        }
    }

    /// What the agent knows about a call: Call-ID, tags, media port, the INVITE of an incoming
    /// call. Call only on ``eventLoop`` (from an event handler); nil for an unknown handle.
    package func callInfo(_ handle: SIPCallHandle) -> SIPCallInfo? {
        eventLoop.preconditionInEventLoop()
        guard let call = calls[handle] else { return nil }
        return SIPCallInfo(
            callID: call.session.callID, localTag: call.session.localTag, remoteTag: call.session.dialogID?.remoteTag,
            mediaPort: call.mediaPort, reservedMedia: call.media, isOutgoing: call.session.isOutgoing, state: call.session.state,
            transport: call.invitePeer?.transport ?? configuration.transport, invitePeer: call.invitePeer,
            requestPeers: call.requestPeers, localICE: call.session.capabilities.ice)
    }

    /// Rejects an incoming call (e.g. 486 Busy Here, 603 Decline).
    package func reject(_ handle: SIPCallHandle, statusCode: Int, reasonPhrase: String? = nil) {
        mutateCall(handle) { $0.reject(statusCode: statusCode, reasonPhrase: reasonPhrase, now: $1) }
    }

    /// Ends a call: CANCEL while an outgoing call rings, 487/603 for an unanswered incoming one, BYE once confirmed.
    package func hangUp(_ handle: SIPCallHandle) { jobs.execute { self.performHangUp(handle) } }

    /// Puts the call on hold with a re-INVITE (`a=sendonly`).
    package func hold(_ handle: SIPCallHandle) { mutateCall(handle) { $0.hold(now: $1) } }

    /// Re-sends the call's current offer in a re-INVITE (after a lost signaling connection).
    package func refresh(_ handle: SIPCallHandle) { mutateCall(handle) { $0.refresh(now: $1) } }

    /// Resumes a held call with a re-INVITE (`a=sendrecv`).
    package func resume(_ handle: SIPCallHandle) { mutateCall(handle) { $0.resume(now: $1) } }

    /// Sends an INFO in the call's dialog (application/json up to 10 KB, application/dtmf-relay),
    /// or, for an incoming call that rang, in its early dialog.
    /// - Parameters:
    ///   - handle: The call.
    ///   - contentType: The body's media type.
    ///   - body: The body.
    ///   - headers: Extra header fields (see ``SIPInviteSession/sendInfo(contentType:body:headers:now:)``).
    /// - Returns: A future with the INFO's final status: the peer's (2xx accepted it), 408 when
    ///   it went unanswered, 503 when the transport failed or the connection was lost. It fails
    ///   with ``SIPInviteSessionError`` when the INFO could not be sent at all, and with
    ///   ``SIPUserAgentError/noSuchCall`` for an unknown call or one dropped before the result.
    package func sendInfo(
        _ handle: SIPCallHandle, contentType: String, body: [UInt8], headers: SIPHeaders = SIPHeaders()
    ) -> EventLoopFuture<Int> {
        jobs.flatSubmit {
            guard var call = self.calls[handle] else { return self.eventLoop.makeFailedFuture(SIPUserAgentError.noSuchCall) }
            let actions: [SIPInviteSessionAction]
            do {
                actions = try call.session.sendInfo(contentType: contentType, body: body, headers: headers, now: self.now)
            } catch {
                return self.eventLoop.makeFailedFuture(error)
            }
            let sent = actions.lazy.compactMap { action -> UInt32? in
                guard case .sendRequest(let request) = action else { return nil }
                return try? request.headers.cseq().sequence
            }.first
            guard let sequence = sent else { return self.eventLoop.makeFailedFuture(SIPInviteSessionError.notConfirmed) }
            // Registered before performing: a send that fails at once reports its result right away.
            let promise = self.eventLoop.makePromise(of: Int.self)
            call.infoWaiters[sequence] = promise
            self.calls[handle] = call
            self.performCall(actions, handle: handle)
            return promise.futureResult
        }
    }

    func performHangUp(_ handle: SIPCallHandle) {
        guard var call = calls[handle] else { return }
        let actions = call.session.hangUp(now: now)
        calls[handle] = call
        performCall(actions, handle: handle)
    }

    func mutateCall(_ handle: SIPCallHandle, _ body: @escaping @Sendable (inout SIPInviteSession, MediaTime) -> [SIPInviteSessionAction]) {
        jobs.execute {
            guard var call = self.calls[handle] else { return }
            let actions = body(&call.session, self.now)
            self.calls[handle] = call
            self.performCall(actions, handle: handle)
        }
    }

    // MARK: - Session plumbing

    func sessionConfiguration(mediaPort: UInt16) -> SIPInviteSession.Configuration {
        var capabilities = configuration.media
        capabilities.port = mediaPort
        if let advertisedHost { capabilities.address = advertisedHost }
        let host = capabilities.address
        let mapped = mappedMediaAddresses.removeValue(forKey: mediaPort)
        let relay = mediaRelays[mediaPort]
        if let mapped {
            // Behind a NAT: the SDP names where the STUN server saw this port's packets come from.
            capabilities.address = mapped.ip.description
            capabilities.port = mapped.port
        }
        if capabilities.encryption.usesDTLS {
            capabilities.ice = Self.iceParameters(
                host: host, port: mediaPort, mapped: mapped, stunServer: configuration.stunServer, relays: relay?.candidates ?? [],
                policy: configuration.candidatePolicy, otherHosts: advertisedHost == nil ? [] : otherMediaHosts)
            if configuration.candidatePolicy == .relay, let relay {
                // Relay only: the SDP reveals none of our own addresses (RFC 8445 §5.1.1: the
                // default candidate is the relayed one).
                capabilities.address = relay.relayed.ip.description
                capabilities.port = relay.relayed.port
            }
        }
        var identity = configuration.identity
        identity.parameters.set("tag", nil)
        var session = SIPInviteSession.Configuration(
            localIdentity: identity, contact: contactURI, via: viaTemplate, capabilities: capabilities,
            credentials: configuration.credentials, userAgent: configuration.userAgent,
            t1: configuration.transactionConfiguration.t1)
        session.sessionTimer = configuration.sessionTimer
        session.reliableProvisionals = configuration.reliableProvisionals
        return session
    }

    private func register(_ session: SIPInviteSession, media: ReservedMediaPort) -> SIPCallHandle {
        let handle = SIPCallHandle(id: nextCallID)
        nextCallID += 1
        let key = Self.routingKey(callID: session.callID, localTag: session.localTag)
        calls[handle] = SIPUserAgentCall(session: session, media: media, relay: mediaRelays.removeValue(forKey: media.port), routingKey: key)
        callsByDialog[key] = handle
        return handle
    }

    func acceptIncomingInvite(_ invite: SIPRequest, key: SIPTransactionKey, source: SIPTransportEndpoint) {
        // An INVITE with Replaces (RFC 3891) takes over one of our confirmed calls, or is refused.
        let replacing: SIPCallHandle?
        switch replacedCall(by: invite) {
        case .refused(let refusal):
            sendResponse(refusal)
            return
        case .takesOver(let handle):
            replacing = handle
        case .none:
            replacing = nil
        }
        let ringingFromSource = ringingCallsBySource[source.host, default: 0]
        guard activeCallCount + invitesAwaitingMediaPort.count < configuration.limits.maximumCalls,
            ringingFromSource < configuration.limits.maximumRingingCallsPerSource || isTrustedSource(source)
        else {
            // Full: no media port, no dialog, no event for the app. 503, not 486: the user is
            // not busy, this server is, and a proxy fails over on a 503.
            overloadRejections += 1
            var full = SIPResponse(replyingTo: invite, statusCode: 503)
            full.headers.add("Retry-After", "\(configuration.limits.retryAfterSeconds)")
            full.headers.add("Warning", "399 - \"call limit reached\"")
            sendResponse(full)
            return
        }
        if let overloaded = mediaOverloadRefusal(invite) {
            sendResponse(overloaded)
            return
        }
        guard mayExchangeKeys(transport: source.transport, host: source.host) else {
            // Our answer would carry our key in clear text (RFC 4568 §8.3).
            var refused = SIPResponse(replyingTo: invite, statusCode: 488)
            refused.headers.add("Warning", "399 - \"SRTP keys are only exchanged over TLS\"")
            sendResponse(refused)
            return
        }
        // Counted as ringing from here, so a burst cannot overrun the limits while ports are reserved.
        ringingCallsBySource[source.host] = ringingFromSource + 1
        invitesAwaitingMediaPort[key] = false
        reserveMediaPort().whenComplete { result in
            let cancelled = self.invitesAwaitingMediaPort.removeValue(forKey: key) ?? true
            guard case .success(let media) = result, !cancelled, !self.isShutDown else {
                if case .success(let media) = result { self.releaseUnusedMedia(media) }
                self.ringingCallsBySource.decrementCount(source.host)
                // Cancelled meanwhile (the CANCEL got its 200): the INVITE ends with 487.
                self.sendResponse(SIPResponse(replyingTo: invite, statusCode: cancelled ? 487 : 503))
                return
            }
            var rng = SecureRandomNumberGenerator()
            var configuration = self.sessionConfiguration(mediaPort: media.port)
            configuration.capabilities.encryption = self.encryptionPolicy(transport: source.transport, host: source.host)
            let session = SIPInviteSession(incoming: invite, configuration: configuration, using: &rng)
            if let tooShort = session.sessionIntervalRefusal() {
                // A session interval under our Min-SE (RFC 4028 §9): 422 with ours, at once.
                self.releaseUnusedMedia(media)
                self.ringingCallsBySource.decrementCount(source.host)
                self.sendResponse(tooShort)
                return
            }
            if let refusal = session.offerRefusal(), refusal.sipStatusCode == 488 {
                // An offer we could never answer (a key exchange or codec we lack): 488 at once.
                self.releaseUnusedMedia(media)
                self.ringingCallsBySource.decrementCount(source.host)
                var refused = SIPResponse(replyingTo: invite, statusCode: 488)
                refused.headers.add("Warning", refusal.warningHeader)
                self.sendResponse(refused)
                return
            }
            let handle = self.register(session, media: media)
            self.calls[handle]?.invitePeer = source
            self.calls[handle]?.ringingSource = source.host
            self.callsByServerInvite[key] = handle
            self.onEvent(.incomingCall(handle, invite: invite, mediaPort: media.port, replacing: replacing))
        }
    }

    /// Free local media ports, bound on ``blockingQueue`` (not on the loop) and held for the
    /// call's media stream (``ReservedMediaPort``); the future completes on the loop. With an
    /// injected port source (in-memory networks), only the port number.
    func reserveMediaPort() -> EventLoopFuture<ReservedMediaPort> {
        if let mediaPortSource { return mediaPortSource(eventLoop).map { ReservedMediaPort(unboundPort: $0) } }
        let promise = eventLoop.makePromise(of: ReservedMediaPort.self)
        // With an advertised address the media socket binds the wildcard (see the configuration).
        let host = advertisedHost == nil ? configuration.media.address : configuration.mediaListenHost ?? configuration.listenHost
        let jobs = self.jobs
        let stunServer = configuration.stunServer
        // A relay is only for ICE: calls that never use DTLS-SRTP do not allocate one.
        let turnServers = configuration.media.encryption.usesDTLS ? configuration.turnServers : []
        let relayOnly = configuration.candidatePolicy == .relay && !turnServers.isEmpty
        let logger = self.logger
        blockingQueue.async {
            let reserved = Result { () throws(SIPUserAgentError) in
                let port = try SIPMediaPortReservation.reserve(host: host, stunServer: stunServer, turnServers: turnServers, logger: logger)
                guard relayOnly, port.relay == nil else { return port }
                port.sockets.release()
                throw .noRelay(port.relayFailures.joined(separator: "; "))
            }
            // Through the job queue: a burst of calls' setups (run by the promise's callbacks)
            // then takes the loop in bounded turns rather than all at once.
            jobs.execute {
                if case .success(let reserved) = reserved {
                    if let mapped = reserved.mapped { self.mappedMediaAddresses[reserved.port] = mapped }
                    if let relay = reserved.relay { self.mediaRelays[reserved.port] = relay }
                }
                promise.completeWith(reserved.map(\.sockets).mapError { $0 as any Error })
            }
        }
        return promise.futureResult
    }

    /// Frees a reserved port whose call will not run media: its STUN mapping and TURN relay
    /// (given back to the server) are forgotten, its sockets closed.
    func releaseUnusedMedia(_ media: ReservedMediaPort, relay: TURNRelay? = nil) {
        mappedMediaAddresses[media.port] = nil
        if let relay = relay ?? mediaRelays.removeValue(forKey: media.port) {
            _ = media.withRTPDescriptor { descriptor in SIPMediaRelayAllocation.release(relay, descriptor: descriptor) }
        }
        media.release()
    }

    static func routingKey(callID: String, localTag: String) -> String { callID + "\u{0}" + localTag }

    /// The call an in-dialog request belongs to: Call-ID and our tag (the request's To tag).
    func callForRequest(_ request: SIPRequest) -> SIPCallHandle? {
        guard let callID = try? request.headers.callID(), let tag = try? request.headers.to().tag else { return nil }
        return callsByDialog[Self.routingKey(callID: callID, localTag: tag)]
    }

    /// The call a response belongs to: Call-ID and our tag (the response's From tag).
    func callForResponse(_ response: SIPResponse) -> SIPCallHandle? {
        guard let callID = try? response.headers.callID(), let tag = try? response.headers.from().tag else { return nil }
        return callsByDialog[Self.routingKey(callID: callID, localTag: tag)]
    }

    func callReceived(_ request: SIPRequest, handle: SIPCallHandle) {
        guard var call = calls[handle] else { return }
        let actions = call.session.receiveRequest(request, now: now)
        calls[handle] = call
        performCall(actions, handle: handle)
    }

    /// Performs a session's actions; drops the call once it reports termination.
    func performCall(_ actions: [SIPInviteSessionAction], handle: SIPCallHandle) {
        for action in actions {
            switch action {
            case .sendRequest(let request):
                sendRequest(request, owner: .call(handle))
            case .sendACK(let ack):
                sendACK(ack)
            case .sendResponse(let response):
                sendResponse(response, fallbackPeer: calls[handle]?.invitePeer)
            case .startTimer(let timer, let after):
                calls[handle]?.timers[timer]?.cancel()
                calls[handle]?.timers[timer] = eventLoop.scheduleTask(in: .nanoseconds(max(0, after.nanoseconds))) {
                    self.calls[handle]?.timers[timer] = nil
                    guard var call = self.calls[handle] else { return }
                    let actions = call.session.timerFired(timer, now: self.now)
                    self.calls[handle] = call
                    self.performCall(actions, handle: handle)
                }
            case .cancelTimer(let timer):
                calls[handle]?.timers[timer]?.cancel()
                calls[handle]?.timers[timer] = nil
            case .event(let event):
                if case .infoResult(let cseq, let statusCode) = event {
                    calls[handle]?.infoWaiters.removeValue(forKey: cseq)?.succeed(statusCode)
                }
                switch event {
                case .established, .terminated: stopRinging(handle)
                default: break
                }
                onEvent(.call(handle, event))
                if case .terminated = event { scheduleCallRemoval(handle) }
            }
        }
    }

    /// Calls whose reserved media ports are still held here, two descriptors each (a ringing
    /// call, one whose media has not started). On the loop.
    package var callsHoldingMediaPorts: Int {
        eventLoop.preconditionInEventLoop()
        return calls.values.count { $0.media.isHeld }
    }

    /// Calls that count against ``SIPUserAgentLimits/maximumCalls``: not yet ending. A call
    /// whose BYE or CANCEL is out holds no media and no longer counts, however long the peer
    /// takes to answer it (a flood's peer never does).
    var activeCallCount: Int {
        calls.values.reduce(0) { count, call in
            switch call.session.state {
            case .terminating, .terminated: count
            default: count + 1
            }
        }
    }

    /// An incoming call is answered or over: it no longer counts as ringing for its source.
    private func stopRinging(_ handle: SIPCallHandle) {
        guard let source = calls[handle]?.ringingSource else { return }
        calls[handle]?.ringingSource = nil
        ringingCallsBySource.decrementCount(source)
    }

    /// Keeps a terminated call around for 64·T1 so late retransmissions still find their dialog, then drops it.
    private func scheduleCallRemoval(_ handle: SIPCallHandle) {
        let linger = configuration.transactionConfiguration.transactionTimeout
        // Media that never started no longer needs its ports (nor its relay).
        if let call = calls[handle] {
            releaseUnusedMedia(call.media, relay: call.relay)
            calls[handle]?.relay = nil
        }
        eventLoop.scheduleTask(in: .nanoseconds(linger.nanoseconds)) {
            guard var call = self.calls.removeValue(forKey: handle) else { return }
            for timer in call.timers.values { timer.cancel() }
            for waiter in call.takeInfoWaiters() { waiter.fail(SIPUserAgentError.noSuchCall) }
            self.callsByDialog[call.routingKey] = nil
        }
    }
}

/// A header name and value, Sendable for hopping onto the event loop (the agent's and the
/// client's).
package struct SIPHeaderPair: Sendable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
