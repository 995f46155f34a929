import Foundation

/// Decides an interface's ``NetworkInterfaceType`` from the kernel's own facts: the link type
/// (`ARPHRD_*`), the driver kind rtnetlink reports, and the device type sysfs reports
/// (`DEVTYPE=wlan` / `wwan` in `/sys/class/net/<name>/uevent`, or a `wireless` directory).
/// The app's overrides, by interface name, win over all of it.
package struct NetworkInterfaceClassifier: Sendable {
    /// Reads an interface's sysfs device type (`wlan`, `wwan`, `bridge`…), or nil.
    package typealias DeviceTypeLookup = @Sendable (_ interfaceName: String) -> String?

    package var overrides: [String: NetworkInterfaceType]
    private let deviceType: DeviceTypeLookup

    package init(overrides: [String: NetworkInterfaceType] = [:], deviceType: @escaping DeviceTypeLookup = Self.sysfsDeviceType) {
        self.overrides = overrides
        self.deviceType = deviceType
    }

    /// Driver kinds that carry a VPN or tunnel (`ip link add … type <kind>`, and tun/tap).
    static let tunnelKinds: Set<String> = [
        "tun", "wireguard", "ipip", "gre", "gretap", "ip6gre", "ip6gretap", "sit", "ip6tnl", "vti", "vti6", "xfrm",
        "ipsec", "openvpn", "ovpn",
    ]

    package func type(of link: NetworkLink) -> NetworkInterfaceType {
        if let chosen = overrides[link.name] { return chosen }
        if link.isLoopback { return .loopback }
        if let kind = link.kind, Self.tunnelKinds.contains(kind) { return .vpn }
        switch link.hardwareType {
        case ARPHardware.rawIP, ARPHardware.ppp: return .cellular
        case ARPHardware.none, ARPHardware.tunnel, ARPHardware.tunnel6, ARPHardware.sit, ARPHardware.ipGRE: return .vpn
        case ARPHardware.ieee80211, ARPHardware.ieee80211Radiotap: return .wifi
        default: break
        }
        switch deviceType(link.name) {
        case "wlan": return .wifi
        case "wwan": return .cellular
        default: return .ethernet
        }
    }

    /// `DEVTYPE` from `/sys/class/net/<name>/uevent`, or `wlan` when the interface has a
    /// `wireless` directory (older wireless drivers set no DEVTYPE). Names with a `/` or `..`
    /// are refused. sysfs shows the network namespace it was mounted in.
    package static let sysfsDeviceType: DeviceTypeLookup = { name in
        guard !name.isEmpty, !name.contains("/"), name != "..", name != "." else { return nil }
        let base = "/sys/class/net/\(name)"
        if let uevent = try? String(contentsOfFile: base + "/uevent", encoding: .utf8) {
            for line in uevent.split(separator: "\n") where line.hasPrefix("DEVTYPE=") {
                return String(line.dropFirst("DEVTYPE=".count))
            }
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: base + "/wireless", isDirectory: &isDirectory), isDirectory.boolValue {
            return "wlan"
        }
        return nil
    }
}
