import NIOCore
import VoiceSIP
import VoiceSupport

// Call transfer through the agent: REFER out and in (the session's), and an INVITE with
// Replaces matched against every call's dialog (RFC 3891), which only the agent sees.
extension SIPUserAgent {
    /// Sends REFER in the call `handle` asking its peer to call `target`; with `replacing`, an
    /// attended transfer: the target is that call's peer and the new call replaces it there.
    /// Progress arrives as ``SIPInviteSessionEvent/referProgress(_:)`` events of `handle`.
    package func transfer(_ handle: SIPCallHandle, to target: SIPURI?, replacing other: SIPCallHandle?) -> EventLoopFuture<Void> {
        jobs.flatSubmit {
            guard var call = self.calls[handle] else { return self.eventLoop.makeFailedFuture(SIPUserAgentError.noSuchCall) }
            var uri = target
            var replaces: SIPReplaces?
            if let other {
                guard let dialog = self.calls[other]?.session.currentDialog, dialog.state == .confirmed else {
                    return self.eventLoop.makeFailedFuture(SIPUserAgentError.noSuchCall)
                }
                // As the target sees its dialog with us: its own tag is our remote one.
                replaces = SIPReplaces(callID: dialog.callID, toTag: dialog.id.remoteTag, fromTag: dialog.id.localTag)
                uri = dialog.remoteTarget
            }
            guard let uri else { return self.eventLoop.makeFailedFuture(SIPUserAgentError.noSuchCall) }
            let actions: [SIPInviteSessionAction]
            do {
                actions = try call.session.sendRefer(to: uri, replaces: replaces, now: self.now)
            } catch {
                return self.eventLoop.makeFailedFuture(error)
            }
            self.calls[handle] = call
            self.performCall(actions, handle: handle)
            return self.eventLoop.makeSucceededFuture(())
        }
    }

    /// Answers the REFER the call's peer sent (``SIPInviteSessionEvent/referReceived(_:)``):
    /// accepted (202 and a first NOTIFY) or refused with `statusCode`.
    package func answerRefer(_ handle: SIPCallHandle, accept: Bool, statusCode: Int = 603) {
        mutateCall(handle) { $0.answerRefer(accept: accept, statusCode: statusCode, now: $1) }
    }

    /// Reports the transferred call's status to the transferor in a NOTIFY on the call `handle`.
    package func notifyRefer(_ handle: SIPCallHandle, statusCode: Int) {
        mutateCall(handle) { $0.notifyRefer(statusCode: statusCode, now: $1) }
    }

    /// What an INVITE with Replaces does: take over one of our calls, or be refused.
    enum Replacement {
        case none
        case takesOver(SIPCallHandle)
        case refused(SIPResponse)
    }

    /// For an INVITE with Replaces: the confirmed call it takes over, or the response refusing
    /// it (400 for a malformed Replaces, 481 for no such dialog or one not yet confirmed, as
    /// RFC 3891 §3 allows for an early dialog we did not start; 486 for early-only and an answered one).
    func replacedCall(by invite: SIPRequest) -> Replacement {
        guard invite.headers.contains("replaces") else { return .none }
        let replaces: SIPReplaces
        do throws(SIPParseError) {
            guard let value = try invite.headers.replaces() else { return .none }
            replaces = value
        } catch {
            return .refused(SIPResponse(replyingTo: invite, statusCode: 400))
        }
        guard let handle = callsByDialog[Self.routingKey(callID: replaces.callID, localTag: replaces.toTag)],
            let dialog = calls[handle]?.session.currentDialog, dialog.id.remoteTag == replaces.fromTag,
            dialog.state == .confirmed, calls[handle]?.session.state == .confirmed
        else { return .refused(SIPResponse(replyingTo: invite, statusCode: 481)) }
        // §3: early-only names a dialog that must still be early; this one is answered.
        if replaces.earlyOnly { return .refused(SIPResponse(replyingTo: invite, statusCode: 486)) }
        return .takesOver(handle)
    }
}
