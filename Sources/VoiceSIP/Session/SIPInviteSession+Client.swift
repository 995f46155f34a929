import VoiceSupport

// The caller's side, and responses to every request we send.
extension SIPInviteSession {
    /// Sends the INVITE with our SDP offer. Only in ``SIPInviteSessionState/idle`` (UAC).
    package mutating func start(now: MediaTime) -> [SIPInviteSessionAction] {
        guard role == .uac, state == .idle else { return [] }
        let offer: SDPSessionDescription
        do throws(SDPNegotiationError) {
            offer = try offerAnswer.makeOffer(direction: wantedDirection)
        } catch {
            return terminate(.mediaNegotiationFailed(error))
        }
        let request = makeInitialInvite(sequence: nextSequence, body: Array(offer.text.utf8), authorization: [])
        nextSequence += 1
        invite = request
        state = .calling
        return [send(request, as: .invite)]
    }

    /// Handles a response to one of our requests: provisionals and finals of the INVITE,
    /// re-INVITE, BYE, INFO and CANCEL, and 2xx retransmissions (answered with the same ACK).
    package mutating func receiveResponse(_ response: SIPResponse, now: MediaTime) -> [SIPInviteSessionAction] {
        guard let cseq = try? response.headers.cseq() else { return [] }
        let key = RequestKey(sequence: cseq.sequence, method: cseq.method)
        guard let pending = outstanding[key] else {
            guard cseq.method == .invite, (200..<300).contains(response.statusCode) else { return [] }
            let remoteTag = try? response.headers.to().tag
            // A 2xx retransmission: the same ACK again.
            if let ack = acks[cseq.sequence], remoteTag == dialog?.id.remoteTag { return [.sendACK(ack)] }
            return forkedSuccess(response, sequence: cseq.sequence, remoteTag: remoteTag)
        }
        if response.statusCode >= 200 { outstanding[key] = nil }
        switch pending.purpose {
        case .invite: return inviteResponse(response, to: pending.request, sequence: cseq.sequence, now: now)
        case .reinvite(let modification):
            let actions = reinviteResponse(response, to: pending.request, modification: modification, sequence: cseq.sequence, now: now)
            return actions + sendQueuedModification()
        case .bye:
            guard response.statusCode >= 200 else { return [] }
            if let retry = authenticate(response, request: pending.request, purpose: .bye) { return retry }
            return terminate(.localHangUp)
        case .info(let firstSequence, _):
            guard response.statusCode >= 200 else { return [] }
            if let retry = authenticate(response, request: pending.request, purpose: pending.purpose) { return retry }
            let result = SIPInviteSessionAction.event(.infoResult(cseq: firstSequence, statusCode: response.statusCode))
            if (response.statusCode == 408 || response.statusCode == 481) && state == .confirmed {
                // §12.2.1.2: a 408 or 481 to a request inside the dialog means the dialog is gone.
                return [result] + byeAndTerminate(.failed(.finalResponse(statusCode: response.statusCode)))
            }
            return [result]
        case .update:
            guard response.statusCode >= 200 else { return [] }
            if let retry = authenticate(response, request: pending.request, purpose: .update) { return retry }
            // A refused UPDATE (405 from a peer without it, 491) leaves the old target: the
            // re-INVITE after the answer carries the new one anyway.
            dialog?.receiveResponse(response, method: .update)
            return []
        case .sessionRefresh:
            return sessionRefreshResponse(response, to: pending.request)
        case .refer:
            return referResponse(response, to: pending.request)
        case .notify:
            // The transferor no longer knows the subscription: stop reporting.
            if response.statusCode == 481, case .reporting = referPhase { referPhase = .idle }
            return []
        case .prack:
            // A refused PRACK changes nothing here: the callee ends the INVITE if it needs one.
            guard response.statusCode >= 200 else { return [] }
            return authenticate(response, request: pending.request, purpose: .prack) ?? []
        case .cancel, .forkBye:
            return []
        }
    }

    /// A 2xx to our INVITE from a second fork after the call was set up with the first (§13.2.2.4):
    /// ACK it, then end that dialog with BYE. Its retransmissions get the same ACK.
    private mutating func forkedSuccess(_ response: SIPResponse, sequence: UInt32, remoteTag: String?) -> [SIPInviteSessionAction] {
        guard let remoteTag, let invite, (try? invite.headers.cseq().sequence) == sequence else { return [] }
        if let ack = forkACKs[remoteTag] { return [.sendACK(ack)] }
        guard forkACKs.count < 16, var fork = try? SIPDialog(request: invite, response: response) else { return [] }
        let ack = fork.makeACK(forInviteCSeq: sequence, via: freshVia())
        forkACKs[remoteTag] = ack
        var headers = commonHeaders
        headers.append(("Reason", "SIP;cause=200;text=\"Call completed elsewhere\""))
        let bye = fork.makeRequest(method: .bye, via: freshVia(), headers: headers)
        return [.sendACK(ack), send(bye, as: .forkBye)]
    }

    /// Handles the failure of one of our client transactions (Timer B/F, transport error).
    package mutating func requestFailed(
        method: SIPMethod, cseq: UInt32, failure: SIPFailure, now: MediaTime
    )
        -> [SIPInviteSessionAction]
    {
        guard let pending = outstanding.removeValue(forKey: RequestKey(sequence: cseq, method: method)) else { return [] }
        switch pending.purpose {
        case .invite:
            if cancelSent { return terminate(.cancelledByLocal) }
            // Hung up before any provisional: the call ends as the user asked.
            if cancelWanted { return terminate(.localHangUp) }
            // A redirect target that never answered: the next one (§8.1.3.4).
            return tryNextRedirectTarget() ?? terminate(.failed(failure))
        case .reinvite(let modification):
            offerAnswer.rollbackOffer()
            if failure != .transactionTimeout {
                // §8.1.3.1: a transport failure counts as a 503, which leaves the dialog up. The
                // wished direction stays, so a refresh over a new connection asks for it again.
                return [failed(modification, 503)] + sendQueuedModification()
            }
            // §12.2.1.2: a timed-out request in a dialog ends it.
            return byeAndTerminate(.failed(failure))
        case .bye:
            return terminate(.localHangUp)
        case .info(let firstSequence, _):
            // Timer F is a 408 (§8.1.3.1); a transport failure counts as a 503.
            guard failure == .transactionTimeout else { return [.event(.infoResult(cseq: firstSequence, statusCode: 503))] }
            let result = SIPInviteSessionAction.event(.infoResult(cseq: firstSequence, statusCode: 408))
            // §12.2.1.2: no answer to a request inside the dialog ends it.
            return state == .confirmed ? [result] + byeAndTerminate(.failed(failure)) : [result]
        case .cancel, .forkBye, .update, .prack, .notify:
            return []
        case .refer:
            return referFailed(failure)
        case .sessionRefresh:
            // No answer to a refresh: the dialog is gone (§12.2.1.2).
            return failure == .transactionTimeout ? byeAndTerminate(.failed(failure)) : modify(.sessionRefresh)
        }
    }

    /// Ends the call in whatever way its state needs: CANCEL (UAC, once a provisional arrived,
    /// §9.1), 603 (UAS before answering), BYE (confirmed; as UAS after the ACK, §15).
    package mutating func hangUp(now: MediaTime) -> [SIPInviteSessionAction] {
        switch state {
        case .idle:
            return terminate(.localHangUp)
        case .calling, .early:
            if role == .uas { return reject(statusCode: 603, now: now, reason: .localHangUp) }
            guard !cancelWanted else { return [] }
            cancelWanted = true
            state = .terminating
            return provisionalReceived ? sendCancel() : []
        case .incoming:
            return reject(statusCode: 603, now: now, reason: .localHangUp)
        case .connecting:
            byeAfterACK = true
            state = .terminating
            return []
        case .confirmed:
            return sendBye()
        case .terminating, .terminated:
            return []
        }
    }

    mutating func sendBye() -> [SIPInviteSessionAction] {
        state = .terminating
        // A REFER put to the app gets its answer now: no transfer from a call being hung up.
        var actions = abandonRefer()
        for timer in [SIPInviteSessionTimer.glareRetry, .okRetransmission, .ackTimeout] where runningTimers.contains(timer) {
            actions.append(cancelTimer(timer))
        }
        glareRetry = nil
        pendingOK = nil
        guard let bye = makeDialogRequest(.bye) else { return actions + terminate(.localHangUp) }
        return actions + [send(bye, as: .bye)]
    }

    mutating func sendCancel() -> [SIPInviteSessionAction] {
        guard let invite, !cancelSent else { return [] }
        cancelSent = true
        let cancel = Self.makeCancel(for: invite, userAgent: configuration.userAgent)
        return [send(cancel, as: .cancel), startTimer(.cancelTimeout, after: MediaTime(nanoseconds: configuration.t1.nanoseconds * 64))]
    }

    /// Answers a 401/407 to `request` by resending it with credentials and a new CSeq; nil when
    /// the response is no challenge. A failed answer ends the session for an INVITE.
    mutating func authenticate(_ response: SIPResponse, request: SIPRequest, purpose: Purpose) -> [SIPInviteSessionAction]? {
        guard response.statusCode == 401 || response.statusCode == 407 else {
            if response.statusCode >= 200 { authenticator.requestWasAccepted() }
            return nil
        }
        let origin: SIPAuthChallengeOrigin = response.statusCode == 401 ? .server : .proxy
        let challenges = origin == .server ? response.headers.wwwAuthenticate : response.headers.proxyAuthenticate
        let headers: [SIPAuthorizationHeader]
        do throws(SIPAuthError) {
            headers = try authenticator.answer(
                challenges: challenges, origin: origin, method: request.method.rawValue, uri: request.uri.description,
                body: request.body)
        } catch {
            switch purpose {
            case .invite: return terminate(.failed(SIPFailure(error)))
            case .bye: return terminate(.localHangUp)
            case .info, .cancel, .reinvite, .forkBye, .update, .sessionRefresh, .prack, .refer, .notify: return nil
            }
        }
        let retry: SIPRequest?
        if case .invite = purpose {
            retry = makeInitialInvite(sequence: nextSequence, body: request.body, authorization: headers)
            nextSequence += 1
            // A CANCEL must wait for a provisional of the new INVITE (§9.1).
            provisionalReceived = false
            invite = retry
        } else {
            let type = request.headers.first("content-type")
            var extra = SIPHeaders()
            if case .info(_, let infoHeaders) = purpose { extra = infoHeaders }
            retry = makeDialogRequest(
                request.method, body: request.body, contentType: type, authorization: headers, extraHeaders: extra)
        }
        guard let retry else { return nil }
        return [send(retry, as: purpose)]
    }

    private mutating func inviteResponse(
        _ response: SIPResponse, to request: SIPRequest, sequence: UInt32, now: MediaTime
    )
        -> [SIPInviteSessionAction]
    {
        let code = response.statusCode
        switch code {
        case 100..<200:
            guard !isTerminated else { return [] }
            var actions: [SIPInviteSessionAction] = []
            provisionalReceived = true
            if cancelWanted { return sendCancel() }
            let tagged = (try? response.headers.to().tag) != nil
            if tagged, code > 100 {
                if dialog == nil { dialog = try? SIPDialog(request: request, response: response) }
                state = .early
            }
            // A reliable provisional (RFC 3262 §4) is acknowledged once, and reported once.
            let (isReliable, prack) = prackForProvisional(response, to: request)
            if isReliable {
                guard let prack else { return [] }
                actions.append(prack)
            }
            // The first SDP in a provisional response is the answer (§13.2.1): early media,
            // announced before the progress so the app plays it instead of a ringback tone.
            // Later ones, and the 2xx's, are ignored.
            if case .offerSent = offerAnswer.state, let sdp = Self.sdpBody(response.headers, response.body),
                case .success(let answer) = sdp, let media = try? offerAnswer.receiveAnswer(answer)
            {
                actions.append(.event(.earlyMedia(media)))
            }
            actions.append(.event(code == 180 ? .ringing : .progress(statusCode: code)))
            return actions
        case 200..<300:
            return inviteSuccess(response, to: request, sequence: sequence)
        default:
            if (code == 401 || code == 407), cancelWanted {
                // Hung up while challenged: do not resend.
                return terminate(.localHangUp)
            }
            if let retry = authenticate(response, request: request, purpose: .invite) { return retry }
            if let retry = retryWithSDESOffer(after: response) { return retry }
            if code == 422, let retry = retryWithLongerSession(after: response) { return retry }
            if cancelSent || cancelWanted {
                return terminate(code == 487 ? .cancelledByLocal : .rejected(statusCode: code))
            }
            if (300..<400).contains(code) { return followRedirect(response) }
            return tryNextRedirectTarget() ?? terminate(.rejected(statusCode: code))
        }
    }

    private mutating func inviteSuccess(_ response: SIPResponse, to request: SIPRequest, sequence: UInt32) -> [SIPInviteSessionAction] {
        authenticator.requestWasAccepted()
        let remoteTag = try? response.headers.to().tag
        if let dialog, dialog.id.remoteTag == remoteTag {
            self.dialog?.receiveResponse(response, method: .invite)
        } else if dialog == nil || dialog?.state == .early {
            // First 2xx, possibly from another fork than the early dialog's: it wins. A fork we
            // sent a PRACK in keeps its CSeq count.
            if let remoteTag, var fork = reliable.forkDialogs.removeValue(forKey: remoteTag) {
                fork.receiveResponse(response, method: .invite)
                dialog = fork
            } else {
                guard let confirmed = try? SIPDialog(request: request, response: response) else {
                    return terminate(.failed(.finalResponse(statusCode: response.statusCode)))
                }
                dialog = confirmed
            }
        } else {
            return []
        }
        var actions: [SIPInviteSessionAction] = []
        if let ack = makeACK(forInvite: request, sequence: sequence) { actions.append(.sendACK(ack)) }
        if runningTimers.contains(.cancelTimeout) { actions.append(cancelTimer(.cancelTimeout)) }
        if case .offerSent = offerAnswer.state {
            switch Self.sdpBody(response.headers, response.body) {
            case .success(let answer)?:
                do throws(SDPNegotiationError) {
                    _ = try offerAnswer.receiveAnswer(answer)
                } catch {
                    return actions + byeAndTerminate(.mediaNegotiationFailed(error))
                }
            case .failure(let error)?:
                return actions + byeAndTerminate(.mediaNegotiationFailed(error))
            case nil:
                return actions + byeAndTerminate(.mediaNegotiationFailed(.noOfferPending))
            }
        }
        if cancelWanted {
            // The 2xx crossed our CANCEL: the call is up, so end it with BYE (§15).
            return actions + sendBye()
        }
        guard let media = offerAnswer.negotiated else {
            return actions + byeAndTerminate(.mediaNegotiationFailed(.noOfferPending))
        }
        state = .confirmed
        actions.append(.event(.established(media)))
        actions += sessionTimerAnswered(by: response)
        // Our address moved while the call was being set up: tell the peer now.
        return actions + sendQueuedModification()
    }

    /// Sends BYE in the dialog and ends the session at once with `reason`.
    mutating func byeAndTerminate(_ reason: SIPSessionEndReason) -> [SIPInviteSessionAction] {
        var actions: [SIPInviteSessionAction] = []
        if let bye = makeDialogRequest(.bye) { actions.append(send(bye, as: .bye)) }
        return actions + terminate(reason)
    }
}
