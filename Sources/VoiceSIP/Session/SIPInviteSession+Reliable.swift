import VoiceSupport

// RFC 3262 reliable provisional responses and PRACK in the session; the policy and the
// bookkeeping are ``SIPReliableProvisionals``'.
extension SIPInviteSession {
    // MARK: The callee

    /// Sends a provisional response to the INVITE: reliably when it must go so, and then only
    /// once the one before it is acknowledged.
    mutating func sendProvisional(_ response: SIPResponse) -> [SIPInviteSessionAction] {
        guard let invite = incomingInvite, reliable.isReliable(response, invite: invite.headers) else {
            return [.sendResponse(response)]
        }
        if case .awaitingPRACK(let inFlight, let rseq, let interval, var then) = reliable.phase {
            if let same = then.firstIndex(where: { if case .provisional(let r) = $0 { r.statusCode == response.statusCode } else { false } }) {
                then[same] = .provisional(response)
            } else if then.count < SIPReliableProvisionals.maximumDeferred {
                then.append(.provisional(response))
            }
            reliable.phase = .awaitingPRACK(response: inFlight, rseq: rseq, interval: interval, then: then)
            return []
        }
        return sendReliably(response, then: [])
    }

    private mutating func sendReliably(_ response: SIPResponse, then: [SIPReliableProvisionals.Deferred]) -> [SIPInviteSessionAction] {
        var response = response
        let rseq = reliable.nextRSeq
        reliable.nextRSeq = rseq &+ 1
        response.headers.add("Require", "100rel")
        response.headers.add("RSeq", String(rseq))
        reliable.phase = .awaitingPRACK(response: response, rseq: rseq, interval: configuration.t1, then: then)
        return [
            .sendResponse(response),
            startTimer(.provisionalRetransmission, after: configuration.t1),
            startTimer(.prackTimeout, after: MediaTime(nanoseconds: configuration.t1.nanoseconds * 64)),
        ]
    }

    /// Whether the 2xx must wait: a provisional carrying SDP is not acknowledged yet (§3). The
    /// answer is then queued behind it; otherwise the provisional in flight is abandoned (the
    /// final response ends the need for it) and the 2xx may go.
    mutating func deferAcceptUntilPRACK() -> (deferred: Bool, actions: [SIPInviteSessionAction]) {
        guard case .awaitingPRACK(let inFlight, let rseq, let interval, var then) = reliable.phase else { return (false, []) }
        if !inFlight.body.isEmpty || then.contains(where: { if case .provisional(let r) = $0 { !r.body.isEmpty } else { false } }) {
            if !then.contains(.accept) { then.append(.accept) }
            reliable.phase = .awaitingPRACK(response: inFlight, rseq: rseq, interval: interval, then: then)
            return (true, [])
        }
        return (false, stopReliableRetransmission())
    }

    /// Stops resending the provisional in flight; what waited behind it is dropped.
    mutating func stopReliableRetransmission() -> [SIPInviteSessionAction] {
        reliable.phase = .idle
        var actions: [SIPInviteSessionAction] = []
        for timer in [SIPInviteSessionTimer.provisionalRetransmission, .prackTimeout] where runningTimers.contains(timer) {
            actions.append(cancelTimer(timer))
        }
        return actions
    }

    /// A PRACK from the caller (§3): 200 when it names a reliable provisional we sent for the
    /// INVITE, 481 otherwise. Acknowledging the one in flight sends what waited behind it. An
    /// offer in a PRACK is not taken: 488, though the provisional counts as acknowledged.
    mutating func receivePRACK(_ request: SIPRequest, now: MediaTime) -> [SIPInviteSessionAction] {
        let rack: SIPRAck
        do throws(SIPParseError) {
            guard let value = try request.headers.rack() else { return [.sendResponse(makeResponse(to: request, statusCode: 400))] }
            rack = value
        } catch {
            return [.sendResponse(makeResponse(to: request, statusCode: 400))]
        }
        guard role == .uas, let invite = incomingInvite, let inviteSequence = try? invite.headers.cseq().sequence,
            reliable.names(rack, inviteSequence: inviteSequence)
        else { return [.sendResponse(makeResponse(to: request, statusCode: 481))] }
        var response = makeResponse(to: request, statusCode: 200)
        if !request.body.isEmpty {
            response = makeResponse(to: request, statusCode: 488)
            response.headers.add("Warning", "399 \(configuration.via.host) \"No offer/answer in PRACK\"")
        }
        var actions: [SIPInviteSessionAction] = [.sendResponse(response)]
        guard case .awaitingPRACK(_, let rseq, _, let then) = reliable.phase, rseq == rack.responseNumber else { return actions }
        actions += stopReliableRetransmission()
        return actions + sendDeferred(then, now: now)
    }

    private mutating func sendDeferred(_ steps: [SIPReliableProvisionals.Deferred], now: MediaTime) -> [SIPInviteSessionAction] {
        guard state == .incoming || state == .early else { return [] }
        var actions: [SIPInviteSessionAction] = []
        for (index, step) in steps.enumerated() {
            switch step {
            case .accept:
                return actions + accept(now: now)
            case .provisional(let response):
                let rest = Array(steps[(index + 1)...])
                guard let invite = incomingInvite, reliable.isReliable(response, invite: invite.headers) else {
                    actions.append(.sendResponse(response))
                    continue
                }
                return actions + sendReliably(response, then: rest)
            }
        }
        return actions
    }

    /// The provisional in flight goes again, after twice the last interval.
    mutating func retransmitProvisional() -> [SIPInviteSessionAction] {
        guard case .awaitingPRACK(let response, let rseq, let interval, let then) = reliable.phase else { return [] }
        let next = interval + interval
        reliable.phase = .awaitingPRACK(response: response, rseq: rseq, interval: next, then: then)
        return [.sendResponse(response), startTimer(.provisionalRetransmission, after: next)]
    }

    /// No PRACK within 64·T1: the INVITE is refused with 500 (§3 says a 5xx) and the call ends.
    mutating func provisionalNotAcknowledged(now: MediaTime) -> [SIPInviteSessionAction] {
        guard case .awaitingPRACK = reliable.phase else { return [] }
        let actions = stopReliableRetransmission()
        return actions
            + reject(
                statusCode: 500, reasonPhrase: "Provisional Response Not Acknowledged", now: now,
                reason: .provisionalNotAcknowledged)
    }

    // MARK: The caller

    /// A reliable provisional response to our INVITE: the PRACK acknowledging it, or nil when
    /// it is not new (a retransmission, out of order, no tag or no RSeq: it is then not
    /// reported again either). `isReliable` is false for a response that is not reliable at all.
    mutating func prackForProvisional(_ response: SIPResponse, to request: SIPRequest) -> (isReliable: Bool, prack: SIPInviteSessionAction?) {
        guard reliable.enabled, response.statusCode > 100, response.headers.lists(optionTag: "100rel", in: "require"),
            let rseq = (try? response.headers.rseq()) ?? nil, let tag = try? response.headers.to().tag,
            let sequence = try? request.headers.cseq().sequence
        else { return (false, nil) }
        guard reliable.accept(rseq: rseq, fromDialog: tag) else { return (true, nil) }
        let rack = SIPRAck(responseNumber: rseq, sequence: sequence, method: .invite)
        var extra = SIPHeaders()
        extra.add("RAck", rack.description)
        if dialog?.id.remoteTag == tag {
            return (true, makeDialogRequest(.prack, extraHeaders: extra).map { send($0, as: .prack) })
        }
        guard var fork = reliable.forkDialogs[tag] ?? (try? SIPDialog(request: request, response: response)) else { return (true, nil) }
        var headers = commonHeaders
        headers.append(("RAck", rack.description))
        let prack = fork.makeRequest(method: .prack, via: freshVia(), headers: headers)
        if reliable.forkDialogs[tag] != nil || reliable.forkDialogs.count < SIPReliableProvisionals.maximumForks {
            reliable.forkDialogs[tag] = fork
        }
        return (true, send(prack, as: .prack))
    }
}
