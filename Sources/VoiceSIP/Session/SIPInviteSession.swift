import VoiceSupport

/// One call's signaling (RFC 3261 §13–15, RFC 6086 INFO) as a pure state machine, for the caller
/// (UAC) or the callee (UAS). It owns the dialog and the SDP offer/answer exchange; every input
/// (an API call, a message, a timer, a transaction failure) is a `mutating func` taking the time
/// and returning ``SIPInviteSessionAction``s for the driver to perform in order. It never creates
/// transactions: the driver runs the requests and responses it emits through its transaction table.
///
/// Not thread-safe; a value owned by one driver.
package struct SIPInviteSession: Sendable {
    /// Which side of the call we are.
    enum Role: Sendable { case uac, uas }
    /// A change to the media we asked for with a re-INVITE.
    /// What a re-INVITE of ours is for: hold, resume, or a session refresh (RFC 4028) that
    /// offers the media as it is and whose failure changes nothing the app asked for.
    enum Modification: Sendable { case hold, resume, sessionRefresh }
    /// Why we sent a request.
    enum Purpose: Sendable {
        case invite
        case reinvite(Modification)
        case bye
        /// INFO first sent with CSeq `firstSequence` (reported in its result even after an
        /// authenticated retry) and carrying the extra `headers`.
        case info(firstSequence: UInt32, headers: SIPHeaders)
        case cancel
        /// BYE ending a second fork's dialog; its outcome does not matter.
        case forkBye
        /// UPDATE (RFC 3311) without an offer, refreshing the early dialog's remote target with
        /// our new Contact; its 2xx carries the peer's.
        case update
        /// UPDATE without an offer refreshing the session timer (RFC 4028 §7.4).
        case sessionRefresh
        /// PRACK acknowledging a reliable provisional response (RFC 3262 §4).
        case prack
        /// REFER asking the peer to call a transfer target (RFC 3515).
        case refer
        /// NOTIFY reporting a REFER's progress to the transferor (RFC 3515 §2.4.4).
        case notify
    }
    /// A request we sent and wait a final response for, by CSeq number and method.
    struct RequestKey: Hashable, Sendable {
        var sequence: UInt32
        var method: SIPMethod
    }
    struct Outstanding: Sendable {
        var request: SIPRequest
        var purpose: Purpose
    }
    /// Our 2xx to an INVITE, retransmitted until its ACK.
    struct PendingOK: Sendable {
        var response: SIPResponse
        var sequence: UInt32
        var interval: MediaTime
        /// The 2xx carried an offer (offerless INVITE): the ACK carries the answer.
        var offerInOK: Bool
        /// The 2xx answered the initial INVITE (not a re-INVITE).
        var initial: Bool
    }
    /// SplitMix64, seeded from the generator given at creation: branches, tags and glare delays
    /// stay reproducible in tests.
    struct Random: RandomNumberGenerator, Sendable {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The methods we accept in a dialog, for Allow.
    package static let allowedMethods: [SIPMethod] = [
        .invite, .ack, .bye, .cancel, .options, .info, .update, .prack, .refer, .notify,
    ]
    /// Methods we know but do not support in a session: answered 405 with Allow; others get 501.
    package static let knownMethods: Set<SIPMethod> = [
        .register, .update, .subscribe, .message, .publish,
    ]
    /// The largest application/json INFO body sent or accepted (RFC 6086 leaves it to the package).
    package static let maximumJSONInfoSize = 10_240

    var configuration: Configuration
    let role: Role
    /// Where the session stands.
    package internal(set) var state: SIPInviteSessionState
    /// The Call-ID.
    package let callID: String
    /// Our tag (From tag as UAC, To tag as UAS).
    package let localTag: String
    var dialog: SIPDialog?
    var offerAnswer: SDPOfferAnswer
    var authenticator: SIPAuthenticator
    var random: Random
    var outstanding: [RequestKey: Outstanding] = [:]
    /// The ACKs we sent for 2xx responses, by INVITE CSeq number, to answer 2xx retransmissions.
    var acks: [UInt32: SIPRequest] = [:]
    /// The direction we want while no one changes it: sendrecv, or sendonly while we hold.
    var wantedDirection: SDPDirection = .sendrecv
    /// Our re-INVITE waiting for a retry after 491.
    var glareRetry: Modification?
    /// A hold or resume asked for while another INVITE transaction was in progress in either
    /// direction (§14.1 forbids a second one); sent when that one completes.
    var queuedModification: Modification?
    /// The timers started and not yet fired or cancelled.
    var runningTimers: Set<SIPInviteSessionTimer> = []
    /// RFC 3262 reliable provisional responses, either role (``SIPReliableProvisionals``).
    var reliable: SIPReliableProvisionals
    /// A transfer (REFER) in this dialog, either role.
    var referPhase = SIPReferPhase.idle

    // UAC
    let remote: SIPNameAddress
    /// The INVITE's target: the one asked for, then each redirect's (``redirects``).
    var requestURI: SIPURI
    let extraHeaders: [(String, String)]
    /// The INVITE in progress (the latest, after authentication retries).
    var invite: SIPRequest?
    var nextSequence: UInt32 = 1
    var provisionalReceived = false
    var cancelWanted = false
    var cancelSent = false
    /// RFC 4028 session timers (``SIPSessionTimer``); nil when the configuration turns them off.
    var sessionTimer: SIPSessionTimer?
    /// Whether the peer's Allow lists UPDATE: session refreshes go as UPDATE then.
    var peerAllowsUpdate = false
    /// The 3xx responses followed and the Contacts still to try; nil until the first 3xx.
    var redirects: SIPRedirects?
    /// ACKs sent to 2xx responses of other forks, by their To tag.
    var forkACKs: [String: SIPRequest] = [:]

    // UAS
    var incomingInvite: SIPRequest?
    var incomingError: SIPDialogError?
    var pendingOK: PendingOK?
    /// The SDP answer sent in 183 (early media): the 200 carries the same one (RFC 3261 §13.2.1).
    var earlyAnswer: [UInt8]?
    /// We hung up between our 2xx and its ACK: BYE once the ACK arrives (§15).
    var byeAfterACK = false

    /// Creates the caller's side of a call to `remote`.
    /// - Parameters:
    ///   - remote: The To address (no tag).
    ///   - requestURI: The INVITE's Request-URI.
    ///   - extraHeaders: Added to the INVITE (e.g. a pre-loaded Route, custom X- headers).
    ///   - configuration: Our identity, contact, Via template, media and credentials.
    ///   - rng: Draws the Call-ID, tag, branches and glare delays (SRTP keys use the system's secure generator).
    package init(
        outgoingTo remote: SIPNameAddress, requestURI: SIPURI, extraHeaders: [(String, String)],
        configuration: Configuration, using rng: inout some RandomNumberGenerator
    ) {
        self.configuration = configuration
        self.role = .uac
        self.state = .idle
        self.remote = remote
        self.requestURI = requestURI
        self.extraHeaders = extraHeaders
        self.callID = SIPIdentifierGenerator.callID(host: configuration.via.host, using: &rng)
        self.localTag = SIPIdentifierGenerator.tag(using: &rng)
        self.offerAnswer = SDPOfferAnswer(capabilities: configuration.capabilities, using: &rng)
        self.authenticator = SIPAuthenticator(credentials: configuration.credentials, cnonce: configuration.cnonce)
        self.sessionTimer = configuration.sessionTimer.map(SIPSessionTimer.init)
        self.reliable = SIPReliableProvisionals(
            enabled: configuration.reliableProvisionals, firstRSeq: UInt32.random(in: 1...(1 << 30), using: &rng))
        self.random = Random(state: rng.next())
    }

    /// Creates the callee's side from a new out-of-dialog INVITE that the driver already gave a
    /// server transaction. A malformed INVITE or offer is answered (400, 488) on ``accept(now:)``
    /// or ``ring(now:)``; nothing traps.
    package init(incoming invite: SIPRequest, configuration: Configuration, using rng: inout some RandomNumberGenerator) {
        self.configuration = configuration
        self.role = .uas
        self.state = .incoming
        self.remote = (try? invite.headers.from()) ?? SIPNameAddress(uri: invite.uri)
        self.requestURI = invite.uri
        self.extraHeaders = []
        self.callID = (try? invite.headers.callID()) ?? ""
        self.localTag = SIPIdentifierGenerator.tag(using: &rng)
        self.offerAnswer = SDPOfferAnswer(capabilities: configuration.capabilities, using: &rng)
        self.authenticator = SIPAuthenticator(credentials: configuration.credentials, cnonce: configuration.cnonce)
        self.sessionTimer = configuration.sessionTimer.map(SIPSessionTimer.init)
        self.reliable = SIPReliableProvisionals(
            enabled: configuration.reliableProvisionals, firstRSeq: UInt32.random(in: 1...(1 << 30), using: &rng))
        self.random = Random(state: rng.next())
        self.incomingInvite = invite
        do throws(SIPDialogError) {
            dialog = try SIPDialog(request: invite, localTag: localTag)
        } catch {
            incomingError = error
        }
    }

    /// True for the caller's side (created with ``init(outgoingTo:requestURI:extraHeaders:configuration:using:)``).
    package var isOutgoing: Bool { role == .uac }

    /// The dialog identifier, once a dialog exists.
    package var dialogID: SIPDialogID? { dialog?.id }

    /// The media in force, if negotiated.
    package var negotiatedMedia: SDPNegotiatedMedia? { offerAnswer.negotiated }

    /// The codecs, DTMF and encryption policy this side offers or accepts. Settable until the
    /// first offer or answer is made (an incoming call's codec preference is set before
    /// ``accept(now:)``); later changes apply to later offers.
    package var capabilities: SDPLocalCapabilities {
        get { offerAnswer.capabilities }
        set { offerAnswer.capabilities = newValue }
    }

    /// The dialog, once one exists.
    package var currentDialog: SIPDialog? { dialog }

    var isTerminated: Bool {
        if case .terminated = state { return true }
        return false
    }

    /// Ends the session: cancels every timer and reports `reason`.
    mutating func terminate(_ reason: SIPSessionEndReason) -> [SIPInviteSessionAction] {
        guard !isTerminated else { return [] }
        // A REFER put to the app gets its answer; a transfer of ours is over with the call.
        var actions = abandonRefer()
        referPhase = .idle
        state = .terminated(reason)
        pendingOK = nil
        glareRetry = nil
        for timer in [
            SIPInviteSessionTimer.okRetransmission, .ackTimeout, .glareRetry, .cancelTimeout, .sessionRefresh, .sessionExpiry,
            .provisionalRetransmission, .prackTimeout, .referSubscription,
        ]
        where runningTimers.contains(timer) {
            actions.append(cancelTimer(timer))
        }
        actions.append(.event(.terminated(reason)))
        return actions
    }

    mutating func startTimer(_ timer: SIPInviteSessionTimer, after delay: MediaTime) -> SIPInviteSessionAction {
        runningTimers.insert(timer)
        return .startTimer(timer, after: delay)
    }

    mutating func cancelTimer(_ timer: SIPInviteSessionTimer) -> SIPInviteSessionAction {
        runningTimers.remove(timer)
        return .cancelTimer(timer)
    }
}
