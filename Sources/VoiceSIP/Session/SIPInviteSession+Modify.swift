import VoiceSupport

// Changes to a confirmed call: hold and resume re-INVITEs (with §14.1 glare handling) and INFO.
extension SIPInviteSession {
    /// Puts the peer on hold: re-INVITE with `a=sendonly` (`a=inactive` if it holds us).
    /// Reports ``SIPInviteSessionEvent/holdFailed(statusCode:)`` with nil when the call is not
    /// confirmed or another offer is outstanding.
    package mutating func hold(now: MediaTime) -> [SIPInviteSessionAction] {
        modify(.hold)
    }

    /// Re-sends the current offer (held or not) in a re-INVITE, e.g. once the signaling
    /// connection was re-established; the outcome comes as ``SIPInviteSessionEvent/mediaUpdated(_:)``
    /// or a hold/resume failure.
    package mutating func refresh(now: MediaTime) -> [SIPInviteSessionAction] {
        modify(wantedDirection == .sendrecv ? .resume : .hold)
    }

    /// Takes the peer off hold: re-INVITE with `a=sendrecv`.
    package mutating func resume(now: MediaTime) -> [SIPInviteSessionAction] {
        modify(.resume)
    }

    /// Sends INFO (RFC 6086) with `application/json` (at most 10 240 bytes) or
    /// `application/dtmf-relay`, in the confirmed dialog or, for the callee once it sent 180, in
    /// the early dialog. The outcome comes as ``SIPInviteSessionEvent/infoResult(cseq:statusCode:)``
    /// carrying the CSeq number of the returned request (kept when a challenge makes the session
    /// resend it with credentials).
    /// - Parameters:
    ///   - contentType: The body's media type.
    ///   - body: The body.
    ///   - headers: Extra header fields for the request (e.g. `X-` headers identifying the
    ///     content); not the ones the dialog sets (Via, From, To, Call-ID, CSeq, Route, Contact,
    ///     Content-Type, Content-Length, Max-Forwards, Allow, User-Agent, credentials).
    ///   - now: The current time.
    /// - Throws: ``SIPInviteSessionError/notConfirmed``, ``SIPInviteSessionError/bodyTooLarge``,
    ///   ``SIPInviteSessionError/unsupportedContentType``, ``SIPInviteSessionError/malformedBody``,
    ///   ``SIPInviteSessionError/invalidHeader``.
    package mutating func sendInfo(
        contentType: String, body: [UInt8], headers: SIPHeaders = SIPHeaders(), now: MediaTime
    ) throws(SIPInviteSessionError)
        -> [SIPInviteSessionAction]
    {
        let earlyDialog = role == .uas && state == .early
        guard state == .confirmed || earlyDialog else { throw .notConfirmed }
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
        try Self.checkExtraHeaders(headers)
        guard let request = makeDialogRequest(.info, body: body, contentType: contentType, extraHeaders: headers),
            let sequence = try? request.headers.cseq().sequence
        else { throw .notConfirmed }
        return [send(request, as: .info(firstSequence: sequence, headers: headers))]
    }

    /// The header fields a dialog request gets from the session itself, which extra headers may not set.
    static let sessionManagedHeaders: Set<String> = [
        "via", "from", "to", "call-id", "cseq", "route", "record-route", "contact", "content-type",
        "content-length", "max-forwards", "allow", "user-agent", "authorization", "proxy-authorization",
    ]

    /// Throws ``SIPInviteSessionError/invalidHeader`` unless every field has a token name that
    /// the session does not manage and a value free of control characters (tab allowed).
    static func checkExtraHeaders(_ headers: SIPHeaders) throws(SIPInviteSessionError) {
        for field in headers {
            let name = Array(field.name.utf8)
            guard !name.isEmpty, name.allSatisfy(SIPGrammar.isToken),
                !sessionManagedHeaders.contains(field.key)
            else { throw SIPInviteSessionError.invalidHeader.with("name \(field.name)") }
            guard !field.value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
                throw SIPInviteSessionError.invalidHeader.with("value of \(field.name)")
            }
        }
    }

    func failed(_ modification: Modification, _ statusCode: Int?) -> SIPInviteSessionAction {
        switch modification {
        case .hold: .event(.holdFailed(statusCode: statusCode))
        case .resume: .event(.resumeFailed(statusCode: statusCode))
        case .sessionRefresh: .event(.sessionRefreshFailed(statusCode: statusCode))
        }
    }

    var reinvitePending: Bool {
        outstanding.values.contains { if case .reinvite = $0.purpose { true } else { false } }
    }

    mutating func modify(_ modification: Modification) -> [SIPInviteSessionAction] {
        guard state == .confirmed else { return [failed(modification, nil)] }
        if glareRetry != nil {
            // A retry is scheduled: it will carry the latest wish (and refreshes the session too).
            if modification != .sessionRefresh { glareRetry = modification }
            return []
        }
        if reinvitePending || pendingOK != nil {
            // §14.1: not while another INVITE transaction is in progress; the latest wish goes
            // out after it. One in progress refreshes the session already.
            if modification != .sessionRefresh { queuedModification = modification }
            return []
        }
        let offer: SDPSessionDescription
        let holds = modification == .hold || (modification == .sessionRefresh && wantedDirection != .sendrecv)
        do throws(SDPNegotiationError) {
            offer = holds ? try offerAnswer.makeHoldOffer() : try offerAnswer.makeResumeOffer()
        } catch {
            return [failed(modification, nil)]
        }
        if modification != .sessionRefresh { wantedDirection = modification == .hold ? .sendonly : .sendrecv }
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
            return actions + [.event(.mediaUpdated(media))] + sessionTimerAnswered(by: response)
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
            return [failed(modification, code)] + retrySessionRefreshLater(after: modification)
        }
    }

    /// After a failed change, we want what was in force before it.
    private mutating func restoreDirection(after modification: Modification) {
        switch modification {
        case .hold: wantedDirection = .sendrecv
        case .resume: wantedDirection = .sendonly
        case .sessionRefresh: break  // it changed nothing
        }
    }

    mutating func retryAfterGlare() -> [SIPInviteSessionAction] {
        guard let modification = glareRetry else { return [] }
        glareRetry = nil
        return modify(modification)
    }
}
