/// An RTCP goodbye (BYE, packet type 203; RFC 3550 §6.6).
package struct RTCPGoodbye: Hashable, Sendable {
    /// Sources leaving, at most 31.
    package var ssrcs: [UInt32]
    /// Optional reason for leaving, at most 255 UTF-8 bytes.
    package var reason: String?

    /// Creates a goodbye.
    package init(ssrcs: [UInt32], reason: String? = nil) {
        self.ssrcs = ssrcs
        self.reason = reason
    }

    /// RTCP packet type.
    package static let packetType: UInt8 = 203
}
