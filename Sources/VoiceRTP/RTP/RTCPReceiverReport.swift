/// An RTCP receiver report (RR, packet type 201; RFC 3550 §6.4.2).
package struct RTCPReceiverReport: Hashable, Sendable {
    /// The reporter's SSRC.
    package var ssrc: UInt32
    /// Reception reports, at most 31.
    package var reportBlocks: [RTCPReportBlock]
    /// Profile-specific extension bytes after the report blocks (a multiple of 4).
    package var profileExtension: [UInt8]

    /// Creates a receiver report.
    package init(ssrc: UInt32, reportBlocks: [RTCPReportBlock] = [], profileExtension: [UInt8] = []) {
        self.ssrc = ssrc
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }

    /// RTCP packet type.
    package static let packetType: UInt8 = 201
}
