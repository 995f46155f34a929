/// An RTCP receiver report (RR, packet type 201; RFC 3550 §6.4.2).
public struct RTCPReceiverReport: Hashable, Sendable {
    /// The reporter's SSRC.
    public var ssrc: UInt32
    /// Reception reports, at most 31.
    public var reportBlocks: [RTCPReportBlock]
    /// Profile-specific extension bytes after the report blocks (a multiple of 4).
    public var profileExtension: [UInt8]

    /// Creates a receiver report.
    public init(ssrc: UInt32, reportBlocks: [RTCPReportBlock] = [], profileExtension: [UInt8] = []) {
        self.ssrc = ssrc
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }

    /// RTCP packet type.
    public static let packetType: UInt8 = 201
}
