import VoiceMedia

// Changes to a confirmed call: hold and resume re-INVITEs (with §14.1 glare handling) and INFO.
extension SIPInviteSession {
    /// Puts the peer on hold: re-INVITE with `a=sendonly` (`a=inactive` if it holds us).
    /// Reports ``SIPInviteSessionEvent/holdFailed(statusCode:)`` with nil when the call is not
    /// confirmed or another offer is outstanding.
    public mutating func hold(now: MediaTime) -> [SIPInviteSessionAction] {
        modify(.hold)
    }

    /// Re-sends the current offer (held or not) in a re-INVITE, e.g. once the signaling
    /// connection was re-established; the outcome comes as ``SIPInviteSessionEvent/mediaUpdated(_:)``
    /// or a hold/resume failure.
    public mutating func refresh(now: MediaTime) -> [SIPInviteSessionAction] {
        modify(wantedDirection == .sendrecv ? .resume : .hold)
    }

    /// Takes the peer off hold: re-INVITE with `a=sendrecv`.
    public mutating func resume(now: MediaTime) -> [SIPInviteSessionAction] {
        modify(.resume)
    }

    /// Sends INFO (RFC 6086) with `application/json` (at most 10 240 bytes) or
    /// `application/dtmf-relay`; the outcome comes as ``SIPInviteSessionEvent/infoResult(cseq:statusCode:)``.
    /// - Throws: ``SIPInviteSessionError/notConfirmed``, ``SIPInviteSessionError/bodyTooLarge``,
    ///   ``SIPInviteSessionError/unsupportedContentType``, ``SIPInviteSessionError/malformedBody``.
    public mutating func sendInfo(
        contentType: String, body: [UInt8], now: MediaTime
    ) throws(SIPInviteSessionError)
        -> [SIPInviteSessionAction]
    {
        guard state == .confirmed else { throw .notConfirmed }
        let type: SIPContentType
        do throws(SIPParseError) {
            type = try SIPContentType(parsing: contentType)
        } catch {
            throw SIPInviteSessionError.unsupportedContentType.with(contentType)
        }
        switch "\(type.type)/\(type.subtype)".lowercased() {
        case "application/json":
            guard body.count <= Self.maximumJSONInfoSize else {
                throw SIPInviteSessionError.bodyTooLarge.with("\(body.count) bytes of JSON")
            }
        case SIPDTMFRelay.contentType:
            _ = try SIPDTMFRelay(parsing: body)
        default:
            throw SIPInviteSessionError.unsupportedContentType.with(contentType)
        }
        guard let request = makeDialogRequest(.info, body: body, contentType: contentType) else { throw .notConfirmed }
        return [send(request, as: .info)]
    }

    private func failed(_ modification: Modification, _ statusCode: Int?) -> SIPInviteSessionAction {
        .event(modification == .hold ? .holdFailed(statusCode: statusCode) : .resumeFailed(statusCode: statusCode))
    }

    var reinvitePending: Bool {
        outstanding.values.contains { if case .reinvite = $0.purpose { true } else { false } }
    }

    mutating func modify(_ modification: Modification) -> [SIPInviteSessionAction] {
        guard state == .confirmed else { return [failed(modification, nil)] }
        if glareRetry != nil {
            // A retry is scheduled: it will carry the latest wish.
            glareRetry = modification
            return []
        }
        if reinvitePending || pendingOK != nil {
            // §14.1: not while another INVITE transaction is in progress; the latest wish goes out after it.
            queuedModification = modification
            return []
        }
        let offer: SDPSessionDescription
        do throws(SDPNegotiationError) {
            offer = modification == .hold ? try offerAnswer.makeHoldOffer() : try offerAnswer.makeResumeOffer()
        } catch {
            return [failed(modification, nil)]
        }
        wantedDirection = modification == .hold ? .sendonly : .sendrecv
        guard let request = makeDialogRequest(.invite, body: Array(offer.text.utf8), contentType: Self.sdpContentType) else {
            offerAnswer.rollbackOffer()
            return [failed(modification, nil)]
        }
        return [send(request, as: .reinvite(modification))]
    }

    /// Sends a hold/resume that waited for the previous INVITE transaction, once none is in progress.
    mutating func sendQueuedModification() -> [SIPInviteSessionAction] {
        guard state == .confirmed, !reinvitePending, pendingOK == nil, glareRetry == nil,
            let modification = queuedModification
        else { return [] }
        queuedModification = nil
        return modify(modification)
    }

    /// The §14.1 delay before retrying a re-INVITE refused with 491: 2.1–4 s when we chose the
    /// Call-ID (we placed the call), 0–2 s otherwise, in 10 ms steps.
    mutating func glareDelay() -> MediaTime {
        let steps = role == .uac ? Int64.random(in: 210...400, using: &random) : Int64.random(in: 0...200, using: &random)
        return .milliseconds(steps * 10)
    }

    mutating func reinviteResponse(
        _ response: SIPResponse, to request: SIPRequest, modification: Modification, sequence: UInt32, now: MediaTime
    ) -> [SIPInviteSessionAction] {
        let code = response.statusCode
        guard code >= 200 else { return [] }
        if code < 300 {
            authenticator.requestWasAccepted()
            dialog?.receiveResponse(response, method: .invite)
            var actions: [SIPInviteSessionAction] = []
            // Every 2xx is ACKed, even when the call is ending meanwhile.
            if let ack = makeACK(forInvite: request, sequence: sequence) { actions.append(.sendACK(ack)) }
            if isTerminated { return actions }
            guard case .success(let answer)? = Self.sdpBody(response.headers, response.body),
                let media = try? offerAnswer.receiveAnswer(answer)
            else {
                offerAnswer.rollbackOffer()
                restoreDirection(after: modification)
                return actions + [failed(modification, code)]
            }
            if state == .terminating { return actions }
            return actions + [.event(.mediaUpdated(media))]
        }
        if isTerminated { return [] }
        if code == 401 || code == 407 {
            // The offer stays outstanding: the retry carries the same body.
            if let retry = authenticate(response, request: request, purpose: .reinvite(modification)) { return retry }
            offerAnswer.rollbackOffer()
            restoreDirection(after: modification)
            return [failed(modification, code)]
        }
        offerAnswer.rollbackOffer()
        authenticator.requestWasAccepted()
        switch code {
        case 491:
            glareRetry = modification
            return [startTimer(.glareRetry, after: glareDelay())]
        case 408, 481:
            // §12.2.1.2: the dialog is gone.
            return byeAndTerminate(.failed(.finalResponse(statusCode: code)))
        default:
            restoreDirection(after: modification)
            return [failed(modification, code)]
        }
    }

    /// After a failed change, we want what was in force before it.
    private mutating func restoreDirection(after modification: Modification) {
        wantedDirection = modification == .hold ? .sendrecv : .sendonly
    }

    mutating func retryAfterGlare() -> [SIPInviteSessionAction] {
        guard let modification = glareRetry else { return [] }
        glareRetry = nil
        return modify(modification)
    }
}
