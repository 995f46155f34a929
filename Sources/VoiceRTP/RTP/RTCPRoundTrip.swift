import VoiceSupport
/// Round-trip time from an RTCP report block (RFC 3550 §6.4.1).
package enum RTCPRoundTrip: Sendable {
    /// Computes RTT = A − LSR − DLSR in compact NTP units.
    ///
    /// - Parameters:
    ///   - arrivalCompactNTP: A, the middle 32 bits of the NTP time the report block arrived.
    ///   - lsr: The block's LSR (middle 32 bits of our last SR's NTP timestamp).
    ///   - dlsr: The block's DLSR (receiver's delay since that SR, 1/65536 s).
    /// - Returns: The round trip, or nil when LSR is 0 (no SR received yet) or the result is
    ///   negative (clock or report inconsistency). Wrap of the compact clock is handled.
    @inlinable package static func compute(arrivalCompactNTP: UInt32, lsr: UInt32, dlsr: UInt32) -> MediaTime? {
        guard lsr != 0 else { return nil }
        let rtt = Int32(bitPattern: arrivalCompactNTP &- lsr &- dlsr)
        guard rtt >= 0 else { return nil }
        return NTPTimestamp.duration(compact: UInt32(rtt))
    }
}
