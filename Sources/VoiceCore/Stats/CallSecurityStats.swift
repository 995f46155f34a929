/// What a call's media refused: packets that failed SRTP authentication or replay checks,
/// that could not be parsed, or that came from a source other than the one being played. On a
/// healthy call all are 0 (bar a few stray packets); a rising count means a broken peer or
/// somebody sending to the call's port.
public struct CallSecurityStats: Hashable, Sendable {
    /// SRTP/SRTCP packets that failed authentication (wrong key, tampered, forged).
    public var srtpAuthFailures: UInt64
    /// SRTP/SRTCP packets refused as replays (or too old for the replay window).
    public var srtpReplays: UInt64
    /// Packets that were not RTP/RTCP or carried a payload type the call did not negotiate.
    public var malformedPackets: UInt64
    /// Well-formed, authenticated packets from an SSRC other than the one being played.
    public var rejectedSourcePackets: UInt64
    /// ICE connectivity checks refused for a bad MESSAGE-INTEGRITY or FINGERPRINT, or a wrong
    /// user name (DTLS-SRTP calls).
    public var stunIntegrityFailures: UInt64 = 0
    /// DTLS datagrams from an address that never passed a connectivity check: dropped.
    public var offPathDTLSDatagrams: UInt64 = 0

    /// Creates security statistics.
    package init(srtpAuthFailures: UInt64 = 0, srtpReplays: UInt64 = 0, malformedPackets: UInt64 = 0, rejectedSourcePackets: UInt64 = 0) {
        self.srtpAuthFailures = srtpAuthFailures
        self.srtpReplays = srtpReplays
        self.malformedPackets = malformedPackets
        self.rejectedSourcePackets = rejectedSourcePackets
    }

    /// All refused packets.
    public var total: UInt64 {
        srtpAuthFailures + srtpReplays + malformedPackets + rejectedSourcePackets + stunIntegrityFailures + offPathDTLSDatagrams
    }
}
