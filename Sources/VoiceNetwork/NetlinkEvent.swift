/// One rtnetlink message, decoded (RFC 3549 §2.3.3; linux/rtnetlink.h).
package enum NetlinkEvent: Hashable, Sendable {
    case link(NetworkLink)
    case linkRemoved(index: Int32)
    case address(InterfaceAddress)
    case addressRemoved(InterfaceAddress)
    case route(NetworkRoute)
    case routeRemoved(NetworkRoute)
    /// The end of a dump (`NLMSG_DONE`) for request `sequence`.
    case done(sequence: UInt32)
    /// `NLMSG_ERROR`: `code` is 0 for an acknowledgement, else a negative errno.
    case error(sequence: UInt32, code: Int32)
    /// The kernel dropped messages (`NLMSG_OVERRUN`): the state must be dumped again.
    case overrun
}

/// Why a netlink datagram could not be decoded. The monitor logs it and dumps the state again;
/// it never trusts a partly decoded message.
package struct NetlinkParseError: Error, Hashable, Sendable, CustomStringConvertible {
    package let reason: String
    package init(_ reason: String) { self.reason = reason }
    package var description: String { "malformed netlink message: \(reason)" }
}
