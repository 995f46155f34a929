import VoiceSupport

/// The timer base values of RFC 3261 §17 (T1, T2, T4) and the durations derived from them.
///
/// All durations are ``MediaTime`` intervals. Over a reliable transport the timers that only
/// absorb retransmissions (D, I, J, K) are zero and the retransmission timers (A, E, G) are
/// never started.
package struct SIPTransactionConfiguration: Hashable, Sendable {
    /// RTT estimate, 500 ms by default.
    package var t1: MediaTime
    /// Maximum retransmission interval for non-INVITE requests and INVITE responses, 4 s by default.
    package var t2: MediaTime
    /// Maximum time a message stays in the network, 5 s by default.
    package var t4: MediaTime
    /// Timer D over unreliable transports; RFC 3261 asks for at least 32 s.
    package var timerD: MediaTime
    /// How long an INVITE server transaction waits for the TU before sending 100 (Trying).
    package var tryingDelay: MediaTime

    /// Creates a configuration; the defaults are the values RFC 3261 recommends.
    package init(
        t1: MediaTime = .milliseconds(500),
        t2: MediaTime = .milliseconds(4_000),
        t4: MediaTime = .milliseconds(5_000),
        timerD: MediaTime = .milliseconds(32_000),
        tryingDelay: MediaTime = .milliseconds(200)
    ) {
        self.t1 = t1
        self.t2 = t2
        self.t4 = t4
        self.timerD = timerD
        self.tryingDelay = tryingDelay
    }

    /// The RFC 3261 defaults: T1 500 ms, T2 4 s, T4 5 s.
    package static let rfc3261 = SIPTransactionConfiguration()

    /// 64·T1, the transaction timeout (timers B, F, H, J over UDP, L, M).
    package var transactionTimeout: MediaTime { MediaTime(nanoseconds: t1.nanoseconds.multipliedReportingOverflow(by: 64).partialValue) }

    /// The initial value of `timer` (RFC 3261 Appendix A, Table 4); zero means "fires at once"
    /// for the absorbing timers and "not used" for the retransmission timers.
    /// - Parameters:
    ///   - timer: The timer.
    ///   - reliableTransport: Whether the transaction runs over TCP, TLS or SCTP.
    package func initialInterval(of timer: SIPTransactionTimer, reliableTransport: Bool) -> MediaTime {
        switch timer {
        case .a, .e, .g: return reliableTransport ? .zero : t1
        case .b, .f, .h, .l, .m: return transactionTimeout
        case .j: return reliableTransport ? .zero : transactionTimeout
        case .d: return reliableTransport ? .zero : timerD
        case .i, .k: return reliableTransport ? .zero : t4
        case .trying: return tryingDelay
        }
    }

    /// The retransmission interval that follows `interval`: doubled, and capped at T2 when `capped`.
    func doubled(_ interval: MediaTime, cappedAtT2 capped: Bool) -> MediaTime {
        let (twice, overflow) = interval.nanoseconds.multipliedReportingOverflow(by: 2)
        let next = overflow ? MediaTime(nanoseconds: .max) : MediaTime(nanoseconds: twice)
        return capped ? min(next, t2) : next
    }
}
