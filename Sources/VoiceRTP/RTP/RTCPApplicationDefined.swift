/// An application-defined RTCP packet (APP, packet type 204; RFC 3550 §6.7), passed through uninterpreted.
package struct RTCPApplicationDefined: Hashable, Sendable {
    /// The 5-bit subtype carried in the count field.
    package var subtype: UInt8
    /// The sender's SSRC.
    package var ssrc: UInt32
    /// The four ASCII characters naming the application, as a big-endian word.
    package var name: UInt32
    /// Application data, a multiple of 4 bytes.
    package var data: [UInt8]

    /// Creates an APP packet.
    package init(subtype: UInt8, ssrc: UInt32, name: UInt32, data: [UInt8] = []) {
        self.subtype = subtype
        self.ssrc = ssrc
        self.name = name
        self.data = data
    }

    /// RTCP packet type.
    package static let packetType: UInt8 = 204
}
