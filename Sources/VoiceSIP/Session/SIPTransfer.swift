/// A REFER the peer sent in a call (RFC 3515): whom to call, on whose behalf (RFC 3892), and
/// the dialog the new call replaces at the target (RFC 3891: an attended transfer).
package struct SIPReferRequest: Sendable, Equatable {
    /// The Refer-To URI without its header part.
    package var target: SIPURI
    /// Referred-By, when the REFER named one.
    package var referredBy: SIPNameAddress?
    /// The `?Replaces=` of the Refer-To URI: the new INVITE carries it.
    package var replaces: SIPReplaces?

    package init(target: SIPURI, referredBy: SIPNameAddress? = nil, replaces: SIPReplaces? = nil) {
        self.target = target
        self.referredBy = referredBy
        self.replaces = replaces
    }
}

/// How a REFER of ours goes, as its response and the NOTIFYs of its implicit subscription say.
package enum SIPReferProgress: Sendable, Equatable {
    /// The peer took the REFER (2xx): it is calling the target.
    case accepted
    /// The peer refused the REFER with this status (408 when it never answered, 503 when it
    /// could not be sent).
    case refused(statusCode: Int)
    /// A NOTIFY: the status the transferee's call to the target reached; `final` when the
    /// subscription ended with it (a final status, or Subscription-State terminated).
    case notified(statusCode: Int, final: Bool)
}

/// A REFER's implicit subscription in one dialog (RFC 3515), from either side; one at a time.
enum SIPReferPhase: Sendable, Equatable {
    case idle
    /// The transferor: our REFER numbered `sequence` waits for its answer; NOTIFYs may come first.
    case referring(sequence: UInt32)
    /// The transferor: the REFER was accepted; NOTIFYs report the transferee's call.
    case subscribed(sequence: UInt32)
    /// The transferee: the peer's REFER waits for the app's decision.
    case asking(SIPRequest)
    /// The transferee: we accepted the REFER numbered `sequence` and report the new call in NOTIFYs.
    case reporting(sequence: UInt32)
}
