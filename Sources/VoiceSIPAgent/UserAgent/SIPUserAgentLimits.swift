import VoiceSIP
import VoiceSupport
/// How much a user agent takes on at once, so that a flood (scanners, a broken peer, an attack)
/// costs it a bounded amount of memory and leaves room for everybody else.
///
/// Beyond a limit a request is answered at once without keeping state: 503 with `Retry-After`
/// for a transaction the table has no room for, 486 (Busy Here) for a call beyond
/// ``maximumCalls``, 503 with `Retry-After` for a call while the media engine is beyond
/// ``maximumMediaLoad``. When the flood stops, transactions end by their timers and the agent
/// recovers by itself.
public struct SIPUserAgentLimits: Sendable, Hashable {
    /// Most transactions at once, client and server.
    public var maximumTransactions: Int
    /// Most server transactions (requests we are answering) at once; the rest of
    /// ``maximumTransactions`` stays for our own requests.
    public var maximumServerTransactions: Int
    /// Most server transactions at once for requests from one IP address.
    public var maximumServerTransactionsPerSource: Int
    /// Most calls (dialogs and calls being set up, both directions) at once; an INVITE beyond
    /// it is answered 486.
    public var maximumCalls: Int
    /// Most incoming calls not yet answered from one IP address; an INVITE beyond it is
    /// answered 486. A source that rings and never lets go cannot take every call slot.
    /// The per-source limits do not apply to the incoming-call policy's trusted sources (the
    /// proxy every call comes through).
    public var maximumRingingCallsPerSource: Int
    /// The `Retry-After` (seconds) of an overload 503.
    public var retryAfterSeconds: Int
    /// The media engine load (0...1: the share of time its least busy worker spends on its
    /// ticks) beyond which a new call is refused with 503 and `Retry-After`, and an OPTIONS
    /// probe answered the same way (RFC 3261 §11.2), so a proxy sends the call elsewhere and
    /// keeps this process out of rotation until the load drops. Calls already up are kept.
    /// At 1 the ticks no longer get done in time and every call's audio gaps; the default 0.95
    /// refuses just before that (a machine taking 30 Opus calls a second through Kamailio, two
    /// endpoints each in one process, peaks at 0.83–0.92). Nil turns the check off.
    public var maximumMediaLoad: Double?

    /// Creates limits. The defaults suit a server with tens of calls: each source may hold an
    /// eighth of the server transactions and ring half the calls, and 32 calls at once keep
    /// media real time on two cores.
    public init(
        maximumTransactions: Int = 4096, maximumServerTransactions: Int = 3072,
        maximumServerTransactionsPerSource: Int = 384, maximumCalls: Int = 32, maximumRingingCallsPerSource: Int = 16,
        retryAfterSeconds: Int = 5, maximumMediaLoad: Double? = 0.95
    ) {
        self.maximumTransactions = maximumTransactions
        self.maximumServerTransactions = maximumServerTransactions
        self.maximumServerTransactionsPerSource = maximumServerTransactionsPerSource
        self.maximumCalls = maximumCalls
        self.maximumRingingCallsPerSource = maximumRingingCallsPerSource
        self.retryAfterSeconds = retryAfterSeconds
        self.maximumMediaLoad = maximumMediaLoad
    }
}
