import NIOCore
import VoiceSupport
import VoiceSIP

extension SIPUserAgent {
    /// Entry point for everything the transport reports (on the event loop).
    func handleTransportEvent(_ event: SIPTransportEvent) {
        guard !isShutDown else { return }
        // Anything the first hop sends shows the path to it works (RFC 5626 §4.4).
        if case .received(_, let source) = event { flowAnswered(by: source) }
        switch event {
        case .received(.request(var request), let source):
            logger.trace("recv \(source)\n\(SIPTraceText.render(SIPMessage.request(request).serialized()))")
            guard let stamped = try? SIPViaStamping.stampReceived(request, sourceHost: source.host, sourcePort: source.port) else {
                return
            }
            request = stamped
            receiveRequest(request, source: source)
        case .received(.response(let response), let source):
            logger.trace("recv \(source)\n\(SIPTraceText.render(SIPMessage.response(response).serialized()))")
            receiveResponse(response, source: source)
        case .malformed(let error, let bytes, let source):
            logger.debug("malformed message from \(source): \("\(error)".escapingControlCharacters)")
            // The Via of a message that did not parse is not trusted: the 400 goes back to the source.
            if let response = coreResponder.answer(malformed: bytes, error: error, toTag: SIPIdentifierGenerator.tag()) {
                sendStateless(.response(response), to: source)
            }
        case .connectionClosed(let remote, let error):
            logger.debug("connection to \(remote) closed: \(error.map { "\($0)" } ?? "orderly")")
            // Requests still waiting for an answer on it fail now (RFC 3261 §17.1.4), before the
            // calls hear of the loss and perhaps send new requests over a new connection.
            perform(table.connectionLost(now: now) { $0.peer == remote })
            webSocketConnectionLost(remote)
            if remote == flowClosing { return }  // reported as the flow's failure already
            onEvent(.connectionLost(remote: remote, error: error))
        case .keepAliveAnswered(let source):
            flowAnswered(by: source)
        case .stun(let bytes, _):
            stunReceived(bytes)
        case .unreachable(let remote, let error):
            logger.debug("\(error)")
            // RFC 3261 §18.4: requests sent there that nothing has answered fail now, not at
            // Timer B or F (32 s).
            perform(table.destinationUnreachable(now: now) { $0.peer == remote })
        }
    }

    private func receiveResponse(_ response: SIPResponse, source: SIPTransportEndpoint) {
        guard let via = try? response.headers.topVia(), let branch = via.branch, let cseq = try? response.headers.cseq() else {
            return
        }
        let payload = SIPTransactionPayload(.response(response), peer: source)
        switch table.receiveResponse(payload, statusCode: response.statusCode, branch: branch, cseqMethod: cseq.method.rawValue, now: now) {
        case .matched(let outputs):
            perform(outputs)
        case .unmatched:
            // A 2xx retransmission for an INVITE whose transaction is gone: the dialog re-ACKs it.
            if cseq.method == .invite, (200..<300).contains(response.statusCode), let handle = callForResponse(response) {
                deliverResponse(response, owner: .call(handle))
            }
        }
    }

    private func receiveRequest(_ request: SIPRequest, source: SIPTransportEndpoint) {
        guard let via = try? request.headers.topVia(), let cseq = try? request.headers.cseq() else { return }
        let identity = SIPTransactionRequestIdentity(
            method: request.method.rawValue, branch: via.branch, sentByHost: via.host, sentByPort: via.port,
            transport: via.transport,
            legacy: .init(
                requestURI: request.uri.description, callID: (try? request.headers.callID()) ?? "",
                fromTag: try? request.headers.from().tag, cseqNumber: cseq.sequence))
        if let refusal = admissionRefusal(request, source: source) {
            // Refused or challenged without a transaction: nothing is kept for a caller who
            // may never come back (the INVITE's retransmissions get the same answer).
            sendStateless(.response(refusal), to: responseDestination(refusal, peer: source))
            return
        }
        let payload = SIPTransactionPayload(.request(request), peer: source)
        do {
            switch try table.receiveRequest(
                payload, identity: identity, source: isTrustedSource(source) ? "" : source.host,
                reliableTransport: source.transport.isReliable, now: now)
            {
            case .created(_, let outputs), .matched(_, let outputs):
                perform(outputs)
            case .unmatchedACK:
                if let handle = callForRequest(request) { callReceived(request, handle: handle) }
            }
        } catch {
            // Table full, the source over its share, or an unusable Via: answer statelessly (no
            // state kept) so the peer is not left waiting; busy callers come back later.
            overloadRejections += 1
            var response = SIPResponse(replyingTo: request, statusCode: 503)
            response.headers.add("Retry-After", "\(configuration.limits.retryAfterSeconds)")
            sendStateless(.response(response), to: responseDestination(response, peer: source))
        }
    }

    /// A new request from a server transaction: to its call, a new call, or the core responder.
    func deliverRequest(_ request: SIPRequest, key: SIPTransactionKey, source: SIPTransportEndpoint) {
        if request.method == .cancel {
            let inviteKey = table.inviteTransaction(cancelledBy: key)
            if let inviteKey, let handle = callsByServerInvite[inviteKey] {
                callReceived(request, handle: handle)
            } else if let inviteKey, invitesAwaitingMediaPort[inviteKey] != nil {
                invitesAwaitingMediaPort[inviteKey] = true
                sendResponse(SIPResponse(replyingTo: request, statusCode: 200))
            } else {
                sendResponse(SIPResponse(replyingTo: request, statusCode: 481))
            }
            return
        }
        let existing = callForRequest(request)
        if request.method == .options, existing == nil, let overloaded = mediaOverloadRefusal(request) {
            sendResponse(overloaded)
            return
        }
        switch coreResponder.answer(request, dialogExists: existing != nil, toTag: SIPIdentifierGenerator.tag()) {
        case .respond(let response):
            sendResponse(response)
            return
        case .drop:
            return
        case .passOn:
            break
        }
        if let existing {
            // The peer's requests now come over another connection (it reconnected, as a
            // WebSocket client does after a drop): that one is the call's from now on, for 2xx
            // retransmissions and for requests to a `.invalid` Contact.
            if source.transport.isReliable, let peer = calls[existing]?.invitePeer, peer.transport.isReliable, peer != source {
                calls[existing]?.invitePeer = source
            }
            callReceived(request, handle: existing)
        } else if request.method == .invite {
            acceptIncomingInvite(request, key: key, source: source)
        } else {
            sendResponse(SIPResponse(replyingTo: request, statusCode: 481))
        }
    }

    /// A response from a client transaction, to whoever sent the request.
    func deliverResponse(_ response: SIPResponse, owner: SIPTransactionOwner) {
        switch owner {
        case .call(let handle):
            guard var call = calls[handle] else { return }
            let actions = call.session.receiveResponse(response, now: now)
            calls[handle] = call
            performCall(actions, handle: handle)
        case .registration:
            guard var registration else { return }
            // Our Contact went fitted to the hop's family: the registration knows it unfitted.
            let actions = registration.receiveResponse(hopAddressing?.unfitted(registerResponse: response) ?? response, now: now)
            self.registration = registration
            performRegistration(actions)
        case .keepAlive:
            break
        case .probe(let id):
            probeAnswered(id)
        case .none:
            break
        }
    }

    func failRequest(_ request: SIPRequest, owner: SIPTransactionOwner, failure: SIPFailure) {
        switch owner {
        case .call(let handle):
            guard var call = calls[handle], let cseq = try? request.headers.cseq() else { return }
            let actions = call.session.requestFailed(method: request.method, cseq: cseq.sequence, failure: failure, now: now)
            calls[handle] = call
            performCall(actions, handle: handle)
        case .registration:
            guard var registration else { return }
            let actions = registration.requestFailed(failure: failure, now: now)
            self.registration = registration
            performRegistration(actions)
        case .probe(let id):
            probeFailed(id)
        case .keepAlive, .none:
            break
        }
    }
}
