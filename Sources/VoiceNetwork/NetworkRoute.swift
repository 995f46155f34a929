import VoiceAddress
/// A route (`RTM_NEWROUTE`); the monitor keeps the default routes of the main table, which say
/// which interfaces reach beyond their own subnets and at what metric.
package struct NetworkRoute: Hashable, Sendable {
    package var isIPv6: Bool
    package var destinationPrefixLength: UInt8
    package var table: UInt32
    /// `RTN_*`: 1 unicast.
    package var type: UInt8
    package var outputInterface: Int32?
    package var gateway: IPAddress?
    package var metric: UInt32

    package init(
        isIPv6: Bool, destinationPrefixLength: UInt8 = 0, table: UInt32 = NetworkRoute.mainTable, type: UInt8 = 1,
        outputInterface: Int32?, gateway: IPAddress? = nil, metric: UInt32 = 0
    ) {
        self.isIPv6 = isIPv6
        self.destinationPrefixLength = destinationPrefixLength
        self.table = table
        self.type = type
        self.outputInterface = outputInterface
        self.gateway = gateway
        self.metric = metric
    }

    package static let mainTable: UInt32 = 254

    /// A default route (0.0.0.0/0 or ::/0) of the main table that forwards packets.
    package var isDefault: Bool { destinationPrefixLength == 0 && table == Self.mainTable && type == 1 }
}
