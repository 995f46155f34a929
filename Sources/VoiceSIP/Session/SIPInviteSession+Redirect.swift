// Redirects (RFC 3261 §8.1.3.4): a 3xx to our INVITE sends it on to the response's Contacts,
// one at a time, in the order ``SIPRedirects`` keeps; a target that fails hands over to the
// next. The new INVITE keeps the Call-ID, From (with its tag), To and offer, with a higher
// CSeq and a new branch; the app hears of each step through ``SIPInviteSessionEvent/redirected(statusCode:to:)``.
extension SIPInviteSession {
    /// A 3xx arrived for the INVITE: the INVITE to its best new Contact, or the end of the call
    /// when none is left (a loop, too many redirects, no usable Contact).
    mutating func followRedirect(_ response: SIPResponse) -> [SIPInviteSessionAction] {
        var redirects = self.redirects ?? SIPRedirects(original: requestURI)
        let contacts = try? response.headers.contact()
        let outcome = redirects.redirect(status: response.statusCode, contacts: contacts)
        self.redirects = redirects
        switch outcome {
        case .success(let target):
            return invite(target, afterStatus: response.statusCode)
        case .failure(let failure):
            return terminate(.redirectFailed(failure))
        }
    }

    /// The INVITE to a redirect target failed (a final response or no answer): the INVITE to the
    /// next target waiting, or nil when there is none (or there were no redirects).
    mutating func tryNextRedirectTarget() -> [SIPInviteSessionAction]? {
        guard var redirects, let target = redirects.next() else { return nil }
        self.redirects = redirects
        return invite(target, afterStatus: nil)
    }

    private mutating func invite(_ target: SIPURI, afterStatus status: Int?) -> [SIPInviteSessionAction] {
        requestURI = target
        let body = invite?.body ?? []
        let next = makeInitialInvite(sequence: nextSequence, body: body, authorization: [])
        nextSequence += 1
        provisionalReceived = false
        dialog = nil
        state = .calling
        invite = next
        return [.event(.redirected(statusCode: status, to: target)), send(next, as: .invite)]
    }
}
