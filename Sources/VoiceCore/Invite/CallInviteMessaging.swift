import Dispatch

/// The call-message state of one invite: where message results and received messages go, and
/// the send rate limit (the same 10 per minute as a call's).
struct CallInviteMessaging: Sendable {
    /// The delegate given at registration, or to `handleNotification` for this invite.
    var delegate: DelegateBox<CallMessageDelegate>?
    /// The queue the delegate is called on.
    var queue: DispatchQueue
    /// Sends admitted so far.
    var limiter = CallMessageRateLimiter()
}
