import VoiceAddress
/// An address assigned to an interface (`RTM_NEWADDR`).
package struct InterfaceAddress: Hashable, Sendable {
    package var interfaceIndex: Int32
    package var address: IPAddress
    package var prefixLength: UInt8
    /// `IFA_F_*` flags (linux/if_addr.h), from `IFA_FLAGS` when present.
    package var flags: UInt32
    /// `RT_SCOPE_*`: 0 universe, 200 site, 253 link, 254 host.
    package var scope: UInt8

    package init(interfaceIndex: Int32, address: IPAddress, prefixLength: UInt8, flags: UInt32 = 0, scope: UInt8 = 0) {
        self.interfaceIndex = interfaceIndex
        self.address = address
        self.prefixLength = prefixLength
        self.flags = flags
        self.scope = scope
    }

    static let flagDADFailed: UInt32 = 0x08
    static let flagDeprecated: UInt32 = 0x20
    static let flagTentative: UInt32 = 0x40

    /// The address can source packets: not still in duplicate-address detection, not failed it,
    /// not deprecated, and not link-local (a call's address must be reachable beyond the link).
    package var isUsable: Bool {
        flags & (Self.flagDADFailed | Self.flagTentative | Self.flagDeprecated) == 0 && !address.isLinkLocal
            && !address.isUnspecified
    }

    /// What identifies the address across an update (its flags and scope may change).
    package struct Key: Hashable, Sendable {
        package var interfaceIndex: Int32
        package var address: IPAddress
    }

    package var key: Key { Key(interfaceIndex: interfaceIndex, address: address) }
}
