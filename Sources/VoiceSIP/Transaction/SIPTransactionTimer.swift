/// The named timers of RFC 3261 §17 (Table 4 of Appendix A) and RFC 6026, plus the
/// 200 ms provisional-response timer of an INVITE server transaction.
package enum SIPTransactionTimer: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// INVITE client: request retransmission interval over unreliable transports, doubling each time.
    case a = "A"
    /// INVITE client: transaction timeout in Calling (64·T1).
    case b = "B"
    /// INVITE client: wait time for response retransmissions in Completed.
    case d = "D"
    /// Non-INVITE client: request retransmission interval, doubling up to T2.
    case e = "E"
    /// Non-INVITE client: transaction timeout (64·T1).
    case f = "F"
    /// INVITE server: final non-2xx response retransmission interval, doubling up to T2.
    case g = "G"
    /// INVITE server: wait time for the ACK (64·T1).
    case h = "H"
    /// INVITE server: wait time for ACK retransmissions in Confirmed (T4).
    case i = "I"
    /// Non-INVITE server: wait time for request retransmissions in Completed (64·T1).
    case j = "J"
    /// Non-INVITE client: wait time for response retransmissions in Completed (T4).
    case k = "K"
    /// INVITE server, RFC 6026: wait time in Accepted for INVITE retransmissions (64·T1).
    case l = "L"
    /// INVITE client, RFC 6026: wait time in Accepted for 2xx retransmissions (64·T1).
    case m = "M"
    /// INVITE server: send a 100 (Trying) if the TU has not answered within 200 ms (§17.2.1).
    case trying = "Trying"

    /// The timer's name as the RFC writes it ("A", "B", ... or "Trying").
    package var description: String { "Timer \(rawValue)" }
}
