import VoiceSupport

// The callee's side, and every request the peer sends in the dialog.
extension SIPInviteSession {
    /// Sends 180 Ringing (with our tag and Contact: an early dialog). Only before answering.
    package mutating func ring(now: MediaTime) -> [SIPInviteSessionAction] {
        guard role == .uas, state == .incoming || state == .early, let invite = incomingInvite else { return [] }
        if let incomingError { return reject(statusCode: incomingError.statusCode, now: now) }
        state = .early
        return sendProvisional(makeResponse(to: invite, statusCode: 180))
    }

    /// Sends 183 Session Progress carrying the SDP answer (early media, RFC 3960's gateway
    /// model): the caller may play our media before we answer. Only for an INVITE with an
    /// offer, before answering; may be sent again (the same answer). ``accept(now:)`` later
    /// sends the same answer in its 200. An offer we cannot answer is refused with 488.
    package mutating func sendEarlyMedia(now: MediaTime) -> [SIPInviteSessionAction] {
        guard role == .uas, state == .incoming || state == .early, let invite = incomingInvite else { return [] }
        if let incomingError { return reject(statusCode: incomingError.statusCode, now: now) }
        if earlyAnswer == nil {
            switch Self.sdpBody(invite.headers, invite.body) {
            case .success(let offer)?:
                do throws(SDPNegotiationError) {
                    earlyAnswer = Array(try offerAnswer.receiveOffer(offer, direction: wantedDirection).answer.text.utf8)
                } catch {
                    return reject(statusCode: error.sipStatusCode, now: now, reason: .mediaNegotiationFailed(error))
                }
            case .failure(let error)?:
                return reject(statusCode: 488, now: now, reason: .mediaNegotiationFailed(error))
            case nil:
                // No offer to answer: early media would need an offer in a reliable provisional
                // response (RFC 3262), which we do not send. Ring instead.
                return ring(now: now)
            }
        }
        state = .early
        return sendProvisional(makeResponse(to: invite, statusCode: 183, body: earlyAnswer ?? [], contentType: Self.sdpContentType))
    }

    /// Answers the call: 200 with the SDP answer (or with our offer when the INVITE had none),
    /// retransmitted at T1, 2·T1, … capped at T2 until the ACK. An offer we cannot answer is
    /// refused with 488 and ends the session.
    package mutating func accept(now: MediaTime) -> [SIPInviteSessionAction] {
        guard role == .uas, state == .incoming || state == .early, let invite = incomingInvite else { return [] }
        if let incomingError { return reject(statusCode: incomingError.statusCode, now: now) }
        // A 183 with SDP not acknowledged yet holds the 2xx back (RFC 3262 §3).
        let (deferred, stopped) = deferAcceptUntilPRACK()
        if deferred { return [] }
        let body: [UInt8]
        let offerInOK: Bool
        switch Self.sdpBody(invite.headers, invite.body) {
        case .success? where earlyAnswer != nil:
            body = earlyAnswer ?? []
            offerInOK = false
        case .success(let offer)?:
            do throws(SDPNegotiationError) {
                body = Array(try offerAnswer.receiveOffer(offer, direction: wantedDirection).answer.text.utf8)
            } catch {
                return reject(statusCode: error.sipStatusCode, now: now, reason: .mediaNegotiationFailed(error))
            }
            offerInOK = false
        case .failure(let error)?:
            return reject(statusCode: 488, now: now, reason: .mediaNegotiationFailed(error))
        case nil where !invite.body.isEmpty:
            return unsupportedBody(invite, now: now)
        case nil:
            do throws(SDPNegotiationError) {
                body = Array(try offerAnswer.makeOffer(direction: wantedDirection).text.utf8)
            } catch {
                return reject(statusCode: 500, now: now, reason: .mediaNegotiationFailed(error))
            }
            offerInOK = true
        }
        dialog?.confirm()
        let ok = stopped + sendOK(to: invite, body: body, offerInOK: offerInOK, initial: true) + restartSessionTimers()
        guard !offerInOK, let media = offerAnswer.negotiated else { return ok }
        return ok + [.event(.answered(media))]
    }

    /// 415 with Accept for an INVITE whose body is not SDP (RFC 3261 §21.4.13).
    private mutating func unsupportedBody(_ invite: SIPRequest, now: MediaTime) -> [SIPInviteSessionAction] {
        guard role == .uas, state == .incoming || state == .early else { return [] }
        var response = makeResponse(to: invite, statusCode: 415)
        response.headers.add("Accept", Self.sdpContentType)
        return [.sendResponse(response)] + terminate(.declined(statusCode: 415))
    }

    /// Refuses the call with `statusCode` (300–699; anything else becomes 603). Only before answering.
    package mutating func reject(statusCode: Int, reasonPhrase: String? = nil, now: MediaTime) -> [SIPInviteSessionAction] {
        let code = (300...699).contains(statusCode) ? statusCode : 603
        return reject(statusCode: code, reasonPhrase: reasonPhrase, now: now, reason: .declined(statusCode: code))
    }

    mutating func reject(
        statusCode: Int, reasonPhrase: String? = nil, now: MediaTime, reason: SIPSessionEndReason
    ) -> [SIPInviteSessionAction] {
        guard role == .uas, state == .incoming || state == .early, let invite = incomingInvite else { return [] }
        var response = makeResponse(to: invite, statusCode: statusCode)
        if let reasonPhrase, !reasonPhrase.isEmpty, !reasonPhrase.contains(where: { $0 == "\r" || $0 == "\n" }) {
            response.reasonPhrase = reasonPhrase
        }
        if case .mediaNegotiationFailed(let error) = reason {
            response.headers.add("Warning", error.warningHeader)
        }
        return [.sendResponse(response)] + terminate(reason)
    }

    private mutating func sendOK(to request: SIPRequest, body: [UInt8], offerInOK: Bool, initial: Bool) -> [SIPInviteSessionAction] {
        var response = makeResponse(to: request, statusCode: 200, body: body, contentType: Self.sdpContentType)
        for (name, value) in sessionTimerAnswer(to: request) { response.headers.add(name, value) }
        let sequence = (try? request.headers.cseq().sequence) ?? 0
        pendingOK = PendingOK(
            response: response, sequence: sequence, interval: configuration.t1, offerInOK: offerInOK, initial: initial)
        if initial { state = .connecting }
        return [
            .sendResponse(response),
            startTimer(.okRetransmission, after: configuration.t1),
            startTimer(.ackTimeout, after: MediaTime(nanoseconds: configuration.t1.nanoseconds * 64)),
        ]
    }

    /// Handles a request the peer sent in this dialog: ACK, BYE, CANCEL, re-INVITE, INFO,
    /// OPTIONS, and anything else (405 or 501). Every request but ACK gets a response.
    package mutating func receiveRequest(_ request: SIPRequest, now: MediaTime) -> [SIPInviteSessionAction] {
        switch request.method {
        case .ack: return receiveACK(request)
        case .cancel: return receiveCancel(request)
        default: break
        }
        guard !isTerminated, var dialog else { return [.sendResponse(makeResponse(to: request, statusCode: 481))] }
        do throws(SIPDialogError) {
            try dialog.receiveRequest(request)
        } catch {
            return [.sendResponse(makeResponse(to: request, statusCode: error.statusCode))]
        }
        self.dialog = dialog
        switch request.method {
        case .bye:
            var actions: [SIPInviteSessionAction] = [.sendResponse(makeResponse(to: request, statusCode: 200))]
            if role == .uas, state == .incoming || state == .early, let invite = incomingInvite {
                actions.append(.sendResponse(makeResponse(to: invite, statusCode: 487)))
            }
            return actions + terminate(.remoteHangUp)
        case .invite:
            return receiveReinvite(request)
        case .info:
            return receiveInfo(request)
        case .update:
            return receiveUpdate(request)
        case .prack:
            return receivePRACK(request, now: now)
        case .refer:
            return receiveRefer(request)
        case .notify:
            return receiveNotify(request)
        case .options:
            var response = makeResponse(to: request, statusCode: 200)
            response.headers.add("Accept", Self.sdpContentType)
            return [.sendResponse(response)]
        default:
            let code = Self.knownMethods.contains(request.method) ? 405 : 501
            return [.sendResponse(makeResponse(to: request, statusCode: code))]
        }
    }

    private mutating func receiveReinvite(_ request: SIPRequest) -> [SIPInviteSessionAction] {
        if reinvitePending { return [.sendResponse(makeResponse(to: request, statusCode: 491))] }
        guard state == .confirmed, pendingOK == nil else {
            // §14.2: an INVITE before the previous one completed.
            var response = makeResponse(to: request, statusCode: 500)
            response.headers.add("Retry-After", String(Int.random(in: 0...10, using: &random)))
            return [.sendResponse(response)]
        }
        if let tooShort = sessionIntervalRefusal(of: request) { return [.sendResponse(tooShort)] }
        switch Self.sdpBody(request.headers, request.body) {
        case .success(let offer)?:
            do throws(SDPNegotiationError) {
                let (answer, media) = try offerAnswer.receiveOffer(offer, direction: wantedDirection)
                return sendOK(to: request, body: Array(answer.text.utf8), offerInOK: false, initial: false)
                    + restartSessionTimers() + [.event(.mediaUpdated(media))]
            } catch {
                return [.sendResponse(makeResponse(to: request, statusCode: error.sipStatusCode))]
            }
        case .failure:
            return [.sendResponse(makeResponse(to: request, statusCode: 488))]
        case nil where !request.body.isEmpty:
            var response = makeResponse(to: request, statusCode: 415)
            response.headers.add("Accept", Self.sdpContentType)
            return [.sendResponse(response)]
        case nil:
            do throws(SDPNegotiationError) {
                let offer = try offerAnswer.makeOffer(direction: wantedDirection)
                return sendOK(to: request, body: Array(offer.text.utf8), offerInOK: true, initial: false) + restartSessionTimers()
            } catch {
                return [.sendResponse(makeResponse(to: request, statusCode: error.sipStatusCode))]
            }
        }
    }

    /// UPDATE (RFC 3311): the dialog took the peer's new Contact (a target refresh, early or
    /// confirmed); an offer in it is answered in the 2xx once the call is confirmed and no other
    /// offer is outstanding (491 otherwise, §5.2).
    private mutating func receiveUpdate(_ request: SIPRequest) -> [SIPInviteSessionAction] {
        // In a confirmed dialog an UPDATE refreshes the session timer (RFC 4028 §7.4).
        let refreshes = state == .confirmed
        if refreshes, let tooShort = sessionIntervalRefusal(of: request) { return [.sendResponse(tooShort)] }
        switch Self.sdpBody(request.headers, request.body) {
        case nil where request.body.isEmpty:
            var response = makeResponse(to: request, statusCode: 200)
            guard refreshes else { return [.sendResponse(response)] }
            for (name, value) in sessionTimerAnswer(to: request) { response.headers.add(name, value) }
            return [.sendResponse(response)] + restartSessionTimers()
        case .success(let offer)?:
            guard state == .confirmed, !reinvitePending, pendingOK == nil else {
                return [.sendResponse(makeResponse(to: request, statusCode: 491))]
            }
            do throws(SDPNegotiationError) {
                let (answer, media) = try offerAnswer.receiveOffer(offer, direction: wantedDirection)
                var response = makeResponse(to: request, statusCode: 200, body: Array(answer.text.utf8), contentType: Self.sdpContentType)
                for (name, value) in sessionTimerAnswer(to: request) { response.headers.add(name, value) }
                return [.sendResponse(response)] + restartSessionTimers() + [.event(.mediaUpdated(media))]
            } catch {
                return [.sendResponse(makeResponse(to: request, statusCode: error.sipStatusCode))]
            }
        case .failure:
            return [.sendResponse(makeResponse(to: request, statusCode: 488))]
        case nil:
            var response = makeResponse(to: request, statusCode: 415)
            response.headers.add("Accept", Self.sdpContentType)
            return [.sendResponse(response)]
        }
    }

    private mutating func receiveInfo(_ request: SIPRequest) -> [SIPInviteSessionAction] {
        guard !request.body.isEmpty else { return [.sendResponse(makeResponse(to: request, statusCode: 200))] }
        let type = (try? request.headers.contentType()).flatMap { $0 }
        switch type.map({ "\($0.type)/\($0.subtype)".lowercased() }) {
        case "application/json":
            guard request.body.count <= Self.maximumJSONInfoSize else {
                return [.sendResponse(makeResponse(to: request, statusCode: 413))]
            }
            return [
                .sendResponse(makeResponse(to: request, statusCode: 200)),
                .event(.infoReceived(contentType: "application/json", body: request.body, headers: request.headers)),
            ]
        case SIPDTMFRelay.contentType:
            do throws(SIPInviteSessionError) {
                let relay = try SIPDTMFRelay(parsing: request.body)
                return [
                    .sendResponse(makeResponse(to: request, statusCode: 200)),
                    .event(.dtmfReceived(digit: relay.digit, duration: relay.duration)),
                ]
            } catch {
                return [.sendResponse(makeResponse(to: request, statusCode: error == .bodyTooLarge ? 413 : 400))]
            }
        default:
            var response = makeResponse(to: request, statusCode: 415)
            response.headers.add("Accept", "application/json, \(SIPDTMFRelay.contentType)")
            return [.sendResponse(response)]
        }
    }

    private mutating func receiveACK(_ request: SIPRequest) -> [SIPInviteSessionAction] {
        guard let pending = pendingOK, let cseq = try? request.headers.cseq(), cseq.sequence == pending.sequence,
            var dialog, (try? dialog.receiveRequest(request)) != nil
        else { return [] }
        self.dialog = dialog
        pendingOK = nil
        var actions = [cancelTimer(.okRetransmission), cancelTimer(.ackTimeout)]
        if pending.offerInOK {
            guard case .success(let answer)? = Self.sdpBody(request.headers, request.body) else {
                return actions + byeAndTerminate(.mediaNegotiationFailed(.noOfferPending))
            }
            do throws(SDPNegotiationError) {
                let media = try offerAnswer.receiveAnswer(answer)
                if !pending.initial { actions.append(.event(.mediaUpdated(media))) }
            } catch {
                return actions + byeAndTerminate(.mediaNegotiationFailed(error))
            }
        }
        guard pending.initial else { return actions + sendQueuedModification() }
        if byeAfterACK { return actions + sendBye() }
        state = .confirmed
        if let media = offerAnswer.negotiated { actions.append(.event(.established(media))) }
        // Our address moved after our 2xx went out: tell the peer now.
        return actions + sendQueuedModification()
    }

    private mutating func receiveCancel(_ request: SIPRequest) -> [SIPInviteSessionAction] {
        let ok = makeResponse(to: request, statusCode: 200)
        guard role == .uas, let invite = incomingInvite,
            let sequence = try? request.headers.cseq().sequence, sequence == (try? invite.headers.cseq().sequence)
        else { return [.sendResponse(makeResponse(to: request, statusCode: 481))] }
        guard state == .incoming || state == .early else { return [.sendResponse(ok)] }
        return [.sendResponse(ok), .sendResponse(makeResponse(to: invite, statusCode: 487))] + terminate(.cancelledByRemote)
    }

    /// Handles a timer the session started.
    package mutating func timerFired(_ timer: SIPInviteSessionTimer, now: MediaTime) -> [SIPInviteSessionAction] {
        guard runningTimers.remove(timer) != nil else { return [] }
        switch timer {
        case .okRetransmission:
            guard var pending = pendingOK else { return [] }
            pending.interval = min(pending.interval + pending.interval, configuration.t2)
            pendingOK = pending
            return [.sendResponse(pending.response), startTimer(.okRetransmission, after: pending.interval)]
        case .ackTimeout:
            guard pendingOK != nil else { return [] }
            pendingOK = nil
            var actions: [SIPInviteSessionAction] = []
            if runningTimers.contains(.okRetransmission) { actions.append(cancelTimer(.okRetransmission)) }
            // §13.3.1.4: the dialog is confirmed but the session ends.
            dialog?.confirm()
            return actions + byeAndTerminate(.ackTimeout)
        case .glareRetry:
            return retryAfterGlare()
        case .cancelTimeout:
            guard cancelSent, !isTerminated else { return [] }
            outstanding = outstanding.filter { if case .invite = $0.value.purpose { false } else { true } }
            return terminate(.cancelledByLocal)
        case .sessionRefresh:
            return sendSessionRefresh()
        case .sessionExpiry:
            guard state == .confirmed else { return [] }
            return byeAndTerminate(.sessionExpired)
        case .referSubscription:
            return referSubscriptionExpired()
        case .provisionalRetransmission:
            return retransmitProvisional()
        case .prackTimeout:
            return provisionalNotAcknowledged(now: now)
        }
    }
}
