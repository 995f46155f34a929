import Foundation
import VoiceSIP
import VoiceSupport

/// How much a user agent takes on at once, so that a flood (scanners, a broken peer, an attack)
/// costs it a bounded amount of memory and leaves room for everybody else.
///
/// Beyond a limit a request is answered at once without keeping state, always with 503
/// (Service Unavailable) and `Retry-After`: for a transaction the table has no room for, a call
/// beyond ``maximumCalls`` or ``maximumRingingCallsPerSource``, and a call while the media
/// engine is beyond ``maximumMediaLoad``. A 503 tells a proxy to try another server (RFC 3261
/// §21.5.4) and the caller that this one is full; 486 (Busy Here) would tell them the user is
/// busy, which is not what happened. When the flood stops, transactions end by their timers
/// and the agent recovers by itself.
public struct SIPUserAgentLimits: Sendable, Hashable {
    /// Most transactions at once, client and server.
    public var maximumTransactions: Int
    /// Most server transactions (requests we are answering) at once; the rest of
    /// ``maximumTransactions`` stays for our own requests.
    public var maximumServerTransactions: Int
    /// Most server transactions at once for requests from one IP address.
    public var maximumServerTransactionsPerSource: Int
    /// Most calls (dialogs and calls being set up, both directions) at once; an INVITE beyond
    /// it is answered 503 with `Retry-After`. A bound on memory, descriptors and ports, not on
    /// what the CPU can carry: ``maximumMediaLoad`` measures that, on whatever machine this is.
    /// Default: ``defaultMaximumCalls``.
    public var maximumCalls: Int
    /// Most incoming calls not yet answered from one IP address; an INVITE beyond it is
    /// answered 503 with `Retry-After`. A source that rings and never lets go cannot take
    /// every call slot. The default, half of ``maximumCalls``, lets an SBC or trunk that is
    /// not configured as trusted bring bursts of calls; the per-source limits do not apply to
    /// the incoming-call policy's trusted sources (the proxy every call comes through).
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

    /// The default ``maximumCalls``: 128 per core (256 on two cores). Every call costs about a
    /// megabyte with its media, two descriptors and a port; this keeps those bounded while
    /// leaving the real limit to the media load check, which a two-core machine reaches at
    /// 60–120 media endpoints and a bigger one later.
    public static var defaultMaximumCalls: Int { 128 * max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Creates limits. The defaults suit a server of any size: each source may hold an eighth
    /// of the server transactions and ring half the calls; calls are bounded by
    /// ``defaultMaximumCalls`` and, first, by the media load.
    /// - Parameter maximumRingingCallsPerSource: nil for half of `maximumCalls`.
    public init(
        maximumTransactions: Int = 4096, maximumServerTransactions: Int = 3072,
        maximumServerTransactionsPerSource: Int = 384, maximumCalls: Int = SIPUserAgentLimits.defaultMaximumCalls,
        maximumRingingCallsPerSource: Int? = nil, retryAfterSeconds: Int = 5, maximumMediaLoad: Double? = 0.95
    ) {
        self.maximumTransactions = maximumTransactions
        self.maximumServerTransactions = maximumServerTransactions
        self.maximumServerTransactionsPerSource = maximumServerTransactionsPerSource
        self.maximumCalls = maximumCalls
        self.maximumRingingCallsPerSource = maximumRingingCallsPerSource ?? max(1, maximumCalls / 2)
        self.retryAfterSeconds = retryAfterSeconds
        self.maximumMediaLoad = maximumMediaLoad
    }
}
