/// An RTCP sender report (SR, packet type 200; RFC 3550 §6.4.1).
package struct RTCPSenderReport: Hashable, Sendable {
    /// The sender's SSRC.
    package var ssrc: UInt32
    /// Wall-clock time the report was sent.
    package var ntpTimestamp: NTPTimestamp
    /// The same instant in the sender's RTP timestamp units.
    package var rtpTimestamp: UInt32
    /// RTP data packets sent since starting transmission.
    package var packetCount: UInt32
    /// RTP payload octets sent since starting transmission.
    package var octetCount: UInt32
    /// Reception reports, at most 31.
    package var reportBlocks: [RTCPReportBlock]
    /// Profile-specific extension bytes after the report blocks (a multiple of 4).
    package var profileExtension: [UInt8]

    /// Creates a sender report.
    package init(
        ssrc: UInt32, ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
        reportBlocks: [RTCPReportBlock] = [], profileExtension: [UInt8] = []
    ) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }

    /// RTCP packet type.
    package static let packetType: UInt8 = 200
}
