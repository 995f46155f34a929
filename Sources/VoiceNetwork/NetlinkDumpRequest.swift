import VoiceBytes
import VoiceSupport

/// A request for the kernel's whole table of links, addresses or routes (`NLM_F_DUMP`), answered
/// by one message per entry and `NLMSG_DONE`.
package enum NetlinkDumpRequest: CaseIterable, Sendable {
    case links
    case addresses
    case routes

    /// The request's bytes: the netlink header, then the family-header of the table with every
    /// field zero (all families, all interfaces).
    package func bytes(sequence: UInt32) -> [UInt8] {
        let (type, bodyLength): (UInt16, Int) =
            switch self {
            case .links: (18, 16)  // RTM_GETLINK, struct ifinfomsg
            case .addresses: (22, 8)  // RTM_GETADDR, struct ifaddrmsg
            case .routes: (26, 12)  // RTM_GETROUTE, struct rtmsg
            }
        let length = NetlinkMessageParser.headerLength + bodyLength
        var bytes = [UInt8](repeating: 0, count: length)
        bytes.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            // The buffer is sized above: these writes cannot run out of room.
            try? writer.writeHost(UInt32(length))
            try? writer.writeHost(type)
            try? writer.writeHost(UInt16(0x1 | 0x300))  // NLM_F_REQUEST | NLM_F_DUMP
            try? writer.writeHost(sequence)
            try? writer.writeHost(UInt32(0))  // port id: the kernel fills it in
        }
        return bytes
    }
}
