import VoiceSupport

// RFC 4028 session timers in the session: the header fields our INVITEs, refreshes and 2xx
// carry, the 422 dance, the refreshes (UPDATE where the peer allows it, else re-INVITE), and
// the BYE when a session expires unrefreshed. The policy is ``SIPSessionTimer``'s.
extension SIPInviteSession {
    /// The session-timer fields of a request we send now: none without timers, or outside a
    /// confirmed dialog for a request in one (an early UPDATE is not a refresh).
    func sessionTimerRequestHeaders(initial: Bool) -> [(String, String)] {
        guard let sessionTimer, initial || state == .confirmed else { return [] }
        return sessionTimer.requestHeaders
    }

    /// Cancels both session timers and starts them again for the timer as it now runs.
    mutating func restartSessionTimers() -> [SIPInviteSessionAction] {
        var actions: [SIPInviteSessionAction] = []
        for timer in [SIPInviteSessionTimer.sessionRefresh, .sessionExpiry] where runningTimers.contains(timer) {
            actions.append(cancelTimer(timer))
        }
        guard let sessionTimer, !isTerminated else { return actions }
        if let delay = sessionTimer.refreshDelay { actions.append(startTimer(.sessionRefresh, after: delay)) }
        if let delay = sessionTimer.expiryDelay { actions.append(startTimer(.sessionExpiry, after: delay)) }
        return actions
    }

    /// A 2xx to a request of ours that carried the timer: it runs as the 2xx says, from now.
    mutating func sessionTimerAnswered(by response: SIPResponse) -> [SIPInviteSessionAction] {
        guard var timer = sessionTimer else { return [] }
        timer.answered(by: response)
        sessionTimer = timer
        if let allow = try? response.headers.values("allow") { peerAllowsUpdate = allow.contains { $0.uppercased() == "UPDATE" } }
        return restartSessionTimers()
    }

    /// The 422 to send for a request whose interval is below our Min-SE, or nil.
    func sessionIntervalRefusal(of request: SIPRequest) -> SIPResponse? {
        guard let minimum = sessionTimer?.refusal(of: request) else { return nil }
        var response = makeResponse(to: request, statusCode: 422)
        response.headers.add("Min-SE", String(minimum))
        return response
    }

    /// The initial INVITE's 422, for the agent to send before anything else (nil: acceptable).
    package func sessionIntervalRefusal() -> SIPResponse? {
        guard role == .uas, let invite = incomingInvite else { return nil }
        return sessionIntervalRefusal(of: invite)
    }

    /// The session-timer fields of our 2xx to `request`, whose acceptance restarts the timers
    /// (``restartSessionTimers()``, by the caller once the 2xx is on its way).
    mutating func sessionTimerAnswer(to request: SIPRequest) -> [(String, String)] {
        guard var timer = sessionTimer else { return [] }
        let headers = timer.answering(request)
        sessionTimer = timer
        if request.method == .invite, let allow = try? request.headers.values("allow") {
            peerAllowsUpdate = allow.contains { $0.uppercased() == "UPDATE" }
        }
        return headers
    }

    /// The refresh is due: an UPDATE without a body where the peer allows UPDATE, otherwise a
    /// re-INVITE with the current offer (which any hold or resume also is).
    mutating func sendSessionRefresh() -> [SIPInviteSessionAction] {
        guard state == .confirmed else { return [] }
        if peerAllowsUpdate, let update = makeDialogRequest(.update) { return [send(update, as: .sessionRefresh)] }
        return modify(.sessionRefresh)
    }

    /// A refresh of ours failed without ending the dialog: we try again after an eighth of the
    /// interval, which still comes before the expiry (at most the half interval less 32 s).
    mutating func retrySessionRefreshLater(after modification: Modification) -> [SIPInviteSessionAction] {
        guard modification == .sessionRefresh, case .running(let interval, true)? = sessionTimer?.phase, !isTerminated else { return [] }
        return [startTimer(.sessionRefresh, after: .seconds(Double(max(1, interval / 8))))]
    }

    /// The answer to our refreshing UPDATE.
    mutating func sessionRefreshResponse(_ response: SIPResponse, to request: SIPRequest) -> [SIPInviteSessionAction] {
        let code = response.statusCode
        guard code >= 200, !isTerminated else { return [] }
        if let retry = authenticate(response, request: request, purpose: .sessionRefresh) { return retry }
        switch code {
        case 200..<300:
            dialog?.receiveResponse(response, method: .update)
            return sessionTimerAnswered(by: response)
        case 422:
            guard var timer = sessionTimer, timer.tooSmall(response) else { return [] }
            sessionTimer = timer
            return sendSessionRefresh()
        case 408, 481:
            // §12.2.1.2: the dialog is gone.
            return byeAndTerminate(.failed(.finalResponse(statusCode: code)))
        default:
            // A peer that took UPDATE after all does not: the re-INVITE refreshes.
            peerAllowsUpdate = false
            return modify(.sessionRefresh)
        }
    }
}

extension SIPInviteSession {
    /// A 422 to our INVITE: the INVITE again asking for the interval its Min-SE names, or nil
    /// (no larger one, or retried enough: the call then ends with the 422).
    mutating func retryWithLongerSession(after response: SIPResponse) -> [SIPInviteSessionAction]? {
        guard var timer = sessionTimer, timer.tooSmall(response), let body = invite?.body else { return nil }
        sessionTimer = timer
        let retry = makeInitialInvite(sequence: nextSequence, body: body, authorization: [])
        nextSequence += 1
        provisionalReceived = false
        invite = retry
        return [send(retry, as: .invite)]
    }
}
