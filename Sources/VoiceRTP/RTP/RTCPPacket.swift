/// One RTCP packet inside a compound packet (RFC 3550 §6).
package enum RTCPPacket: Hashable, Sendable {
    /// Sender report (200).
    case senderReport(RTCPSenderReport)
    /// Receiver report (201).
    case receiverReport(RTCPReceiverReport)
    /// Source description (202).
    case sourceDescription(RTCPSourceDescription)
    /// Goodbye (203).
    case goodbye(RTCPGoodbye)
    /// Application-defined (204).
    case applicationDefined(RTCPApplicationDefined)
    /// Extended report (207, RFC 3611).
    case extendedReport(RTCPExtendedReport)
    /// Any other packet type (feedback, ...), kept raw for other layers.
    case other(packetType: UInt8, count: UInt8, body: [UInt8])

    /// The packet type byte.
    package var packetType: UInt8 {
        switch self {
        case .senderReport: RTCPSenderReport.packetType
        case .receiverReport: RTCPReceiverReport.packetType
        case .sourceDescription: RTCPSourceDescription.packetType
        case .goodbye: RTCPGoodbye.packetType
        case .applicationDefined: RTCPApplicationDefined.packetType
        case .extendedReport: RTCPExtendedReport.packetType
        case .other(let type, _, _): type
        }
    }

    /// Size of the common header that starts every RTCP packet.
    package static let headerLength = 4
}
