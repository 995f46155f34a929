/// Packet counters kept by an ``SRTPSession``. Every packet handed to the session is counted
/// exactly once: as processed, or under the reason it was refused.
package struct SRTPSessionStats: Hashable, Sendable {
    /// RTP packets protected for sending.
    package var rtpPacketsProtected: UInt64 = 0
    /// RTCP packets protected for sending.
    package var rtcpPacketsProtected: UInt64 = 0
    /// SRTP packets authenticated and decrypted.
    package var rtpPacketsUnprotected: UInt64 = 0
    /// SRTCP packets authenticated and decrypted.
    package var rtcpPacketsUnprotected: UInt64 = 0
    /// Outbound packets that could not be protected (buffer too small, libsrtp error).
    package var protectFailures: UInt64 = 0
    /// Inbound packets whose authentication tag did not verify.
    package var authenticationFailures: UInt64 = 0
    /// Inbound packets refused by replay protection (repeated, or older than the window).
    package var replayFailures: UInt64 = 0
    /// Inbound packets refused for any other reason (too short, bad MKI, cipher failure).
    package var otherFailures: UInt64 = 0
    /// Times the peer's first authenticated packet needed a rollover counter of 1 (it wrapped
    /// its sequence number before we heard it); counted among the unprotected packets.
    package var rolloverRecoveries: UInt64 = 0

    /// Creates zeroed counters.
    package init() {}

    /// All refused inbound packets.
    package var rejectedPackets: UInt64 { authenticationFailures + replayFailures + otherFailures }
}
