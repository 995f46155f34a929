import VoiceSupport

/// RFC 3262 reliable provisional responses in one session, both roles, as data the session's
/// `+Reliable` extension drives.
///
/// - As the callee, a provisional goes reliably (`Require: 100rel`, an `RSeq`, resent at T1,
///   2·T1, … until its PRACK, for at most 64·T1) when the INVITE requires 100rel, or supports
///   it and the provisional carries SDP (a 183 with early media: the case reliability exists
///   for). One waits for its PRACK at a time (§3): later provisionals, and a 2xx that must not
///   overtake a provisional with SDP, wait behind it.
/// - As the caller, each reliable provisional of an early dialog is acknowledged with a PRACK
///   once, in RSeq order; a retransmission or one out of order is discarded (§4).
struct SIPReliableProvisionals: Sendable {
    /// What waits for the PRACK of the provisional in flight.
    enum Deferred: Sendable, Equatable {
        /// A provisional response to send reliably next.
        case provisional(SIPResponse)
        /// The user answered: the 2xx goes once the provisional with SDP is acknowledged.
        case accept
    }

    /// The callee's reliable provisional in flight.
    enum Phase: Sendable, Equatable {
        /// None waits for a PRACK.
        case idle
        /// `response`, numbered `rseq`, goes again after `interval` (doubling) until its PRACK;
        /// `then` is sent in order once it comes.
        case awaitingPRACK(response: SIPResponse, rseq: UInt32, interval: MediaTime, then: [Deferred])
    }

    /// The most provisionals kept waiting behind the one in flight (an app ringing again and
    /// again replaces the one queued with the same status).
    static let maximumDeferred = 4
    /// The most early dialogs (forks) whose RSeq the caller tracks.
    static let maximumForks = 16

    /// Whether this side takes part: `Supported: 100rel` on our INVITE, reliable provisionals
    /// for a caller that asks for them, PRACK for the callee's.
    let enabled: Bool
    var phase: Phase = .idle
    /// The callee's RSeq space: the first number sent, and the next (§3: random start below 2**31).
    let firstRSeq: UInt32
    var nextRSeq: UInt32
    /// The caller's side: the last RSeq acknowledged in each early dialog, by its To tag.
    var lastReceived: [String: UInt32] = [:]
    /// The caller's side: the early dialogs other than the session's own that we sent a PRACK
    /// in (their CSeq counts on), by To tag.
    var forkDialogs: [String: SIPDialog] = [:]

    init(enabled: Bool, firstRSeq: UInt32) {
        self.enabled = enabled
        self.firstRSeq = firstRSeq
        self.nextRSeq = firstRSeq
    }

    /// Whether the callee sends `response` reliably to an INVITE with these header fields.
    func isReliable(_ response: SIPResponse, invite: SIPHeaders) -> Bool {
        guard enabled, (101..<200).contains(response.statusCode) else { return false }
        if invite.lists(optionTag: "100rel", in: "require") { return true }
        return invite.lists(optionTag: "100rel", in: "supported") && !response.body.isEmpty
    }

    /// Whether a PRACK naming `rack` acknowledges a provisional we sent for the INVITE numbered
    /// `inviteSequence` (in flight or already acknowledged).
    func names(_ rack: SIPRAck, inviteSequence: UInt32) -> Bool {
        rack.method == .invite && rack.sequence == inviteSequence && rack.responseNumber >= firstRSeq
            && rack.responseNumber < nextRSeq
    }

    /// The caller's side: whether a reliable provisional numbered `rseq` from the early dialog
    /// `tag` is new and next in order (and then records it); false for a retransmission, one out
    /// of order, or a fork beyond ``maximumForks``.
    mutating func accept(rseq: UInt32, fromDialog tag: String) -> Bool {
        if let last = lastReceived[tag] {
            guard rseq == last &+ 1 else { return false }
        } else if lastReceived.count >= Self.maximumForks {
            return false
        }
        lastReceived[tag] = rseq
        return true
    }
}
