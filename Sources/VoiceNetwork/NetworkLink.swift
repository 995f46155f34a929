/// A network interface as rtnetlink reports it (`RTM_NEWLINK`).
package struct NetworkLink: Hashable, Sendable {
    /// The kernel's interface index.
    package var index: Int32
    package var name: String
    /// The link-layer type (`ARPHRD_*`, linux/if_arp.h).
    package var hardwareType: UInt16
    /// `IFF_*` flags (linux/if.h).
    package var flags: UInt32
    /// RFC 2863 operational state (`IF_OPER_*`), when reported.
    package var operationalState: UInt8?
    /// The driver kind from `IFLA_LINKINFO` (`veth`, `tun`, `wireguard`, `dummy`…), when reported.
    package var kind: String?

    package init(
        index: Int32, name: String, hardwareType: UInt16, flags: UInt32, operationalState: UInt8? = nil, kind: String? = nil
    ) {
        self.index = index
        self.name = name
        self.hardwareType = hardwareType
        self.flags = flags
        self.operationalState = operationalState
        self.kind = kind
    }

    static let flagUp: UInt32 = 0x1
    static let flagLoopback: UInt32 = 0x8
    static let flagRunning: UInt32 = 0x40
    static let flagLowerUp: UInt32 = 0x1_0000

    /// Administratively up and with a carrier: packets can flow.
    package var isUsable: Bool {
        flags & Self.flagUp != 0 && flags & (Self.flagRunning | Self.flagLowerUp) != 0
    }

    package var isLoopback: Bool { flags & Self.flagLoopback != 0 || hardwareType == ARPHardware.loopback }
}

/// The `ARPHRD_*` link types the classifier looks at (linux/if_arp.h).
package enum ARPHardware {
    package static let ether: UInt16 = 1
    package static let ppp: UInt16 = 512
    package static let rawIP: UInt16 = 519
    package static let tunnel: UInt16 = 768
    package static let tunnel6: UInt16 = 769
    package static let loopback: UInt16 = 772
    package static let sit: UInt16 = 776
    package static let ipGRE: UInt16 = 778
    package static let ieee80211: UInt16 = 801
    package static let ieee80211Radiotap: UInt16 = 803
    package static let none: UInt16 = 65534
}
