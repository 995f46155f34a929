/// The timers an ``SIPInviteSession`` runs through its driver.
package enum SIPInviteSessionTimer: Hashable, Sendable {
    /// Retransmit our 2xx to an INVITE until the ACK (RFC 3261 §13.3.1.4: T1, 2·T1, … capped at T2).
    case okRetransmission
    /// Give up waiting for the ACK to our 2xx after 64·T1 (§13.3.1.4).
    case ackTimeout
    /// Resend a re-INVITE refused with 491 after the §14.1 random delay.
    case glareRetry
    /// Give up on the INVITE 64·T1 after our CANCEL when no final response came (§9.1).
    case cancelTimeout
    /// Refresh the session (RFC 4028 §7.4): we are the refresher and half the interval passed.
    case sessionRefresh
    /// The session expired without a refresh (RFC 4028 §10): BYE.
    case sessionExpiry
    /// Resend our reliable provisional response (RFC 3262 §3: T1, 2·T1, …) until its PRACK.
    case provisionalRetransmission
    /// Give up on the PRACK 64·T1 after the reliable provisional (§3): the INVITE gets 500.
    case prackTimeout
    /// The transferor gives up waiting for the final NOTIFY of its REFER.
    case referSubscription
}
