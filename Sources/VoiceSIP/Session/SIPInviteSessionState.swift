/// Where an INVITE session stands (after pjsip's invite states).
package enum SIPInviteSessionState: Hashable, Sendable {
    /// UAC: created, INVITE not sent yet.
    case idle
    /// UAC: INVITE sent, nothing heard but maybe 100 Trying.
    case calling
    /// UAS: INVITE received, not answered.
    case incoming
    /// A provisional with a tag: early dialog (UAC), or our 180/183 sent (UAS).
    case early
    /// UAS: 2xx sent, waiting for the ACK.
    case connecting
    /// The call is up.
    case confirmed
    /// Ending: CANCEL or BYE sent (or wanted), waiting for its outcome.
    case terminating
    /// Over; the reason was reported in a ``SIPInviteSessionEvent/terminated(_:)`` event.
    case terminated(SIPSessionEndReason)
}
