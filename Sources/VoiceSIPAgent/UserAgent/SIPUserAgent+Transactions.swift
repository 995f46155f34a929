import NIOCore
import VoiceSupport
import VoiceSIP

extension SIPUserAgent {
    // MARK: - Sending requests

    /// Starts a client transaction for `request` (not ACK): picks the destination (the first
    /// Route, else the outbound proxy and the fallback proxies, else the Request-URI), locates
    /// its targets (RFC 3263), sets the top Via's transport to the one used, and sends; a
    /// target that fails (transport error, timeout, 503) hands the request to the next.
    func sendRequest(_ request: SIPRequest, owner: SIPTransactionOwner) {
        let request = rebranchedCancel(request)
        let route = try? request.headers.route().first?.uri
        let nextHop = route ?? configuration.outboundProxy ?? request.uri
        // A WebSocket client's address (RFC 7118 §5: a `.invalid` host) is reachable only over
        // the connection its requests came on: the one the call's INVITE arrived over.
        if nextHop.host.lowercased().hasSuffix(".invalid"), case .call(let handle) = owner,
            let peer = calls[handle]?.invitePeer, peer.transport.isReliable
        {
            startClientTransaction(request, to: peer, serverName: nil, owner: owner, failover: nil)
            return
        }
        let hops: [SIPTargetResolver.Target]
        do {
            hops = try self.hops(toward: request.uri, route: route)
        } catch {
            failRequest(request, owner: owner, failure: error.failure)
            return
        }
        locate(hops).whenComplete { result in
            switch result {
            case .success(let targets):
                if self.joinsRace(request, owner: owner, targets: targets, pin: hops[0], hop: nextHop) { return }
                self.attempt(request, owner: owner, targets: targets[...], pin: hops[0], originalBranch: nil, failure: .transportError)
            case .failure(let error):
                self.logger.info("\(request.method) to \(nextHop): \(error)")
                let failure = (error as? SIPTransportError)?.failure ?? .dnsResolutionFailure
                self.failRequest(request, owner: owner, failure: failure)
            }
        }
    }

    func startClientTransaction(
        _ request: SIPRequest, to endpoint: SIPTransportEndpoint, serverName: String?, owner: SIPTransactionOwner, failover: SIPFailover?
    ) {
        var request = fitted(.request(request), toward: endpoint).request ?? request
        if var via = try? request.headers.topVia(), via.transport != endpoint.transport.rawValue {
            via.transport = endpoint.transport.rawValue
            request.headers.replaceFirst("via", with: via.description)
        }
        guard let branch = try? request.headers.topVia().branch else {
            failRequest(request, owner: owner, failure: .transportError)
            return
        }
        let payload = SIPTransactionPayload(.request(request), peer: endpoint, serverName: serverName)
        if case .call(let handle) = owner { calls[handle]?.requestPeers.insert(endpoint) }
        do {
            let (key, outputs) = try table.sendRequest(
                payload, method: request.method.rawValue, branch: branch,
                reliableTransport: endpoint.transport.isReliable, now: now)
            clientOwners[key] = (owner, request)
            if let failover {
                failovers[key] = failover
                armFailoverTimer(key)
            }
            perform(outputs)
        } catch {
            logger.warning("cannot start a transaction for \(request.method): \(error)")
            failRequest(request, owner: owner, failure: .transportError)
        }
    }

    /// Sends a message outside any transaction (the ACK to a 2xx, stateless responses).
    func sendStateless(_ message: SIPMessage, to endpoint: SIPTransportEndpoint, serverName: String? = nil) {
        let bytes = fitted(message, toward: endpoint).serialized()
        logger.trace("send \(endpoint)\n\(SIPTraceText.render(bytes))")
        transport.send(bytes, to: endpoint, serverName: serverName).whenFailure { error in
            self.logger.debug("send to \(endpoint) failed: \(error)")
        }
    }

    /// Sends the ACK to a 2xx: to the first Route or the remote target, like any in-dialog
    /// request (to the target that answered, when the hop is a located name).
    func sendACK(_ ack: SIPRequest) {
        let route = (try? ack.headers.route().first?.uri) ?? nil
        guard let hops = try? self.hops(toward: ack.uri, route: route) else { return }
        firstEndpoint(of: hops).whenSuccess { endpoint, found in
            var ack = ack
            if var via = try? ack.headers.topVia(), via.transport != endpoint.transport.rawValue {
                via.transport = endpoint.transport.rawValue
                ack.headers.replaceFirst("via", with: via.description)
            }
            self.sendStateless(.request(ack), to: endpoint, serverName: found.serverName)
        }
    }

    /// Sends a response on the server transaction its top Via branch and CSeq method identify;
    /// a 2xx retransmission after the transaction ended goes out statelessly to the same peer.
    func sendResponse(_ response: SIPResponse, fallbackPeer: SIPTransportEndpoint? = nil) {
        guard let key = serverKey(for: response) else { return }
        if table[key] == nil {
            if let peer = fallbackPeer { sendStateless(.response(response), to: responseDestination(response, peer: peer)) }
            return
        }
        guard let peer = table[key].map({ Self.payload(of: $0).peer }) ?? fallbackPeer else { return }
        let destination = responseDestination(response, peer: peer)
        let payload = SIPTransactionPayload(fitted(.response(response), toward: destination), peer: destination)
        do {
            perform(try table.sendResponse(payload, statusCode: response.statusCode, on: key, now: now))
        } catch {
            logger.debug("response \(response.statusCode) not sent: \(error)")
        }
    }

    static func payload(of transaction: SIPTransaction<SIPTransactionPayload>) -> SIPTransactionPayload {
        transaction.request
    }

    func serverKey(for response: SIPResponse) -> SIPTransactionKey? {
        guard let via = try? response.headers.topVia(), let cseq = try? response.headers.cseq() else { return nil }
        let identity = SIPTransactionRequestIdentity(
            method: cseq.method.rawValue, branch: via.branch, sentByHost: via.host, sentByPort: via.port,
            transport: via.transport)
        return try? SIPTransactionKey.server(for: identity)
    }

    /// Where a response goes (RFC 3261 §18.2.2, RFC 3581): on a stream, back on the connection
    /// the request came on while it is open, and once it has closed over a new connection to the
    /// received address and the sent-by port (the peer's listening port, not the closed
    /// connection's ephemeral one); over UDP, to the address its top Via names (the stamped
    /// received and rport, so normally the request's source).
    func responseDestination(_ response: SIPResponse, peer: SIPTransportEndpoint) -> SIPTransportEndpoint {
        guard let destination = try? SIPViaStamping.responseDestination(for: response) else { return peer }
        if peer.transport == .udp {
            return (try? SIPTransportEndpoint(transport: .udp, ip: destination.host, port: destination.port)) ?? peer
        }
        guard !transport.isConnected(to: peer) else { return peer }
        return (try? SIPTransportEndpoint(transport: peer.transport, ip: destination.host, port: destination.port)) ?? peer
    }

    // MARK: - Transaction outputs and timers

    func perform(_ outputs: [SIPTransactionTable<SIPTransactionPayload>.Output]) {
        for output in outputs {
            switch output.action {
            case .transmit(let payload):
                logger.trace("send \(payload.peer)\n\(SIPTraceText.render(payload.bytes))")
                let key = output.key
                transport.send(payload.bytes, to: payload.peer, serverName: payload.serverName).whenFailure { error in
                    self.logger.debug("send to \(payload.peer) failed: \(error)")
                    // The kind of failure reaches the owner: a connection that could not be
                    // opened (31005) is not a socket that failed to send (31009).
                    self.sendFailures[key] = (error as? SIPTransportError)?.failure
                    self.perform(self.table.transportError(on: key, now: self.now))
                    self.sendFailures[key] = nil
                }
            case .transmitACK(let response):
                guard let invite = table[output.key].map(Self.payload(of:)),
                    case .request(let request) = invite.message, case .response(let final) = response.message
                else { continue }
                sendStateless(.request(SIPRequest(ackFor: request, response: final)), to: invite.peer, serverName: invite.serverName)
            case .sendTrying:
                guard let payload = table[output.key].map(Self.payload(of:)), case .request(let request) = payload.message else { continue }
                sendResponse(SIPResponse(replyingTo: request, statusCode: 100))
            case .deliverResponse(let payload, _):
                guard case .response(let response) = payload.message, !failoverReceived(response, on: output.key) else { continue }
                deliverResponse(response, owner: clientOwners[output.key]?.owner ?? .none)
            case .deliverRequest(let payload):
                guard case .request(let request) = payload.message else { continue }
                deliverRequest(request, key: output.key, source: payload.peer)
            case .timedOut:
                logger.debug("transaction \(output.key) timed out")
                clientFailed(output.key, failure: .transactionTimeout)
            case .transportFailed:
                clientFailed(output.key, failure: sendFailures[output.key] ?? .transportError)
            case .terminated:
                if let failover = failovers.removeValue(forKey: output.key) {
                    failover.timer?.cancel()
                    rebranchedInvites[failover.originalBranch] = nil
                }
                clientOwners[output.key] = nil
                callsByServerInvite[output.key] = nil
            case .startTimer, .cancelTimer:
                break
            }
        }
        scheduleTableTimer()
    }

    private func clientFailed(_ key: SIPTransactionKey, failure: SIPFailure) {
        if failOver(key, failure: failure) { return }
        guard let (owner, request) = clientOwners[key] else { return }
        failRequest(request, owner: owner, failure: failure)
    }

    /// Re-arms the one timer that drives the table at its next deadline.
    func scheduleTableTimer() {
        guard !isShutDown, let deadline = table.nextDeadline else {
            tableTimer?.cancel()
            tableTimer = nil
            tableTimerDeadline = nil
            return
        }
        if let current = tableTimerDeadline, current == deadline { return }
        tableTimer?.cancel()
        tableTimerDeadline = deadline
        let delay = max(0, (deadline - now).nanoseconds)
        tableTimer = eventLoop.scheduleTask(in: .nanoseconds(delay)) {
            self.tableTimerDeadline = nil
            self.tableTimer = nil
            self.perform(self.table.advance(to: self.now))
        }
    }
}

extension SIPHeaders {
    /// Replaces the first field named `name` (case-insensitive, compact forms included), keeping its position.
    mutating func replaceFirst(_ name: String, with value: String) {
        let wanted = SIPHeaders.canonicalName(name)
        var fields = Array(self)
        guard let index = fields.firstIndex(where: { $0.key == wanted }) else {
            add(name, value)
            return
        }
        fields[index].value = value
        self = SIPHeaders(fields.map { ($0.name, $0.value) })
    }
}

extension SIPRequest {
    /// The ACK for a non-2xx final response to `invite` (RFC 3261 §17.1.1.3): the INVITE's
    /// Request-URI, top Via, From, Call-ID, CSeq number and Route; To from the response.
    init(ackFor invite: SIPRequest, response: SIPResponse) {
        var headers = SIPHeaders()
        if let via = invite.headers.first("via") {
            let top = (try? SIPHeaders.splitList(via).first) ?? via
            headers.add("Via", top)
        }
        headers.add("Max-Forwards", "70")
        if let from = invite.headers.first("from") { headers.add("From", from) }
        if let to = response.headers.first("to") { headers.add("To", to) }
        if let callID = invite.headers.first("call-id") { headers.add("Call-ID", callID) }
        if let cseq = try? invite.headers.cseq() { headers.add("CSeq", "\(cseq.sequence) ACK") }
        for route in invite.headers["route"] { headers.add("Route", route) }
        headers.add("Content-Length", "0")
        self.init(method: .ack, uri: invite.uri, headers: headers)
    }
}
