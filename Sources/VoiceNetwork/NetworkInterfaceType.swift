/// What kind of network an interface is, in the order calls prefer them (seed 000: ETHERNET,
/// LOOPBACK, WIFI, VPN, CELLULAR). Loopback only serves peers on the same host, so it is chosen
/// for a loopback destination, or when nothing else is up; for any other destination the order
/// is ethernet, Wi-Fi, VPN, cellular.
public enum NetworkInterfaceType: Int, CaseIterable, Comparable, Hashable, Sendable, CustomStringConvertible {
    case ethernet
    case loopback
    case wifi
    case vpn
    case cellular

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .ethernet: "ETHERNET"
        case .loopback: "LOOPBACK"
        case .wifi: "WIFI"
        case .vpn: "VPN"
        case .cellular: "CELLULAR"
        }
    }
}
