import NIOCore
import VoiceSIP
import VoiceSupport

/// The first hop's keep-alives and what they say (``SIPFlowLiveness``).
struct SIPUserAgentFlow {
    /// The outbound proxy or registrar, resolved.
    var hop: SIPTransportEndpoint
    var liveness: SIPFlowLiveness
    var timer: Scheduled<Void>?
}

extension SIPUserAgent {
    /// Starts watching the path to the first hop (the outbound proxy, else the registrar) with
    /// keep-alives that expect an answer: a CRLFCRLF ping answered by a CRLF pong over TCP and
    /// TLS (RFC 5626 §4.4.1), an OPTIONS answered by any response over UDP. A path that goes
    /// unanswered is reported as ``SIPUserAgentEvent/flowFailed(hop:)``, its return as
    /// ``SIPUserAgentEvent/flowRecovered(hop:)``. Idempotent; on the loop.
    func startFlowLivenessIfNeeded() {
        guard flow == nil, !flowResolving, !isShutDown, let configuration = configuration.flowLiveness else { return }
        guard let hop = self.configuration.outboundProxy ?? (registration != nil ? registrationConfiguration.registrar : nil),
            // The proxy's servers and the fallback proxies: the keep-alives go where requests go.
            let hops = try? self.hops(toward: hop)
        else { return }
        flowResolving = true
        firstEndpoint(of: hops).whenComplete { result in
            self.flowResolving = false
            guard case .success((let endpoint, _)) = result, self.flow == nil, !self.isShutDown else { return }
            self.flow = SIPUserAgentFlow(hop: endpoint, liveness: SIPFlowLiveness(configuration: configuration, now: self.now))
            self.scheduleFlowTimer()
        }
    }

    /// The hop being watched, for the calls to know which of them go through it.
    package var watchedHop: SIPTransportEndpoint? {
        eventLoop.preconditionInEventLoop()
        return flow?.hop
    }

    func scheduleFlowTimer() {
        guard var flow, !isShutDown else { return }
        flow.timer?.cancel()
        let delay = max(0, (flow.liveness.nextDeadline - now).nanoseconds)
        flow.timer = eventLoop.scheduleTask(in: .nanoseconds(delay)) { self.flowTimerFired() }
        self.flow = flow
    }

    private func flowTimerFired() {
        guard var flow else { return }
        flow.timer = nil
        let actions = flow.liveness.tick(now: now)
        self.flow = flow
        performFlow(actions)
        scheduleFlowTimer()
    }

    /// A keep-alive was answered (a pong, or a response to an OPTIONS) by `source`.
    func flowAnswered(by source: SIPTransportEndpoint) {
        guard var flow, flow.hop == source else { return }
        let actions = flow.liveness.answered(now: now)
        self.flow = flow
        performFlow(actions)
        scheduleFlowTimer()
    }

    private func performFlow(_ actions: [SIPFlowLiveness.Action]) {
        guard let hop = flow?.hop else { return }
        for action in actions {
            switch action {
            case .sendPing:
                sendKeepAlivePing(to: hop)
            case .failed:
                logger.notice("signaling path to \(hop) is not answering keep-alives")
                if hop.transport.isReliable {
                    // RFC 5626 §4.4.1: a failed flow is replaced, not waited for. The dead
                    // connection's retransmissions back off for many seconds; the next ping
                    // opens a new one, which answers as soon as the path does. Its close is
                    // this failure, not a second event for the calls.
                    flowClosing = hop
                    transport.closeConnection(to: hop).whenComplete { _ in
                        if self.flowClosing == hop { self.flowClosing = nil }
                    }
                }
                onEvent(.flowFailed(hop: hop))
            case .recovered:
                logger.notice("signaling path to \(hop) answers again")
                onEvent(.flowRecovered(hop: hop))
            }
        }
    }

    private func sendKeepAlivePing(to hop: SIPTransportEndpoint) {
        if hop.transport.isReliable {
            // A failed send (no connection can be opened) is simply an unanswered ping.
            _ = transport.send([0x0D, 0x0A, 0x0D, 0x0A], to: hop, serverName: nil)
            return
        }
        guard let target = configuration.outboundProxy ?? configuration.registrar ?? Optional(registrationConfiguration.registrar)
        else { return }
        var uri = target
        uri.user = nil
        sendRequest(makeOptions(to: uri), owner: .keepAlive)
    }

    /// An out-of-dialog OPTIONS to the hop itself (no user part: Kamailio and most proxies answer it).
    func makeOptions(to uri: SIPURI) -> SIPRequest {
        var headers = SIPHeaders()
        var via = viaTemplate
        via.parameters.set("branch", SIPIdentifierGenerator.branch())
        headers.add("Via", via.description)
        headers.add("Max-Forwards", "70")
        var from = configuration.identity
        from.parameters.set("tag", SIPIdentifierGenerator.tag())
        headers.add("From", from.description)
        headers.add("To", SIPNameAddress(uri: uri).description)
        headers.add("Call-ID", SIPIdentifierGenerator.callID())
        headers.add("CSeq", "1 OPTIONS")
        headers.add("Contact", SIPNameAddress(uri: contactURI).description)
        headers.add("Accept", "application/sdp")
        if let userAgent = configuration.userAgent { headers.add("User-Agent", userAgent) }
        headers.add("Content-Length", "0")
        return SIPRequest(method: .options, uri: uri, headers: headers)
    }
}
