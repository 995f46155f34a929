/// Which local address a client advertises (in Contact, Via and SDP), and whether it follows
/// the host's network changes.
public enum AddressSelection: Sendable, Hashable {
    /// Bind ``VoiceClientConfiguration/listenHost`` and advertise it; network changes are not
    /// followed. The default.
    case listenHost
    /// Bind the IPv4 wildcard address and advertise the preferred interface's address, watching
    /// the kernel's network events: when the preferred address changes (renumbering, a link
    /// going down, a better network appearing) the registration rebinds and every call moves to
    /// the new address, reporting `isReconnecting` (53001) then `didReconnect` once the peer
    /// accepted it. Interfaces are preferred in seed 000's order (Ethernet, Wi-Fi, VPN,
    /// cellular; loopback only for a server on this host or with no other network).
    case automatic
}
