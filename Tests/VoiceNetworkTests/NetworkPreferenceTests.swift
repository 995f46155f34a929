import VoiceAddress
import VoiceSupport
import XCTest

@testable import VoiceNetwork

/// Interface types from the kernel's facts, seed 000's preference order, and coalescing.
final class NetworkPreferenceTests: XCTestCase {
    private func link(_ index: Int32, _ name: String, hardware: UInt16 = ARPHardware.ether, kind: String? = nil) -> NetworkLink {
        NetworkLink(index: index, name: name, hardwareType: hardware, flags: 0x1 | 0x40 | 0x1_0000, kind: kind)
    }

    func testTypesComeFromTheKernelsFacts() {
        let devices: [String: String] = ["wlp2s0": "wlan", "wwan0": "wwan", "br0": "bridge"]
        let classifier = NetworkInterfaceClassifier { devices[$0] }
        let cases: [(NetworkLink, NetworkInterfaceType)] = [
            (NetworkLink(index: 1, name: "lo", hardwareType: ARPHardware.loopback, flags: 0x49), .loopback),
            (link(2, "enp3s0"), .ethernet),
            (link(3, "veth0", kind: "veth"), .ethernet),
            (link(4, "br0", kind: "bridge"), .ethernet),
            (link(5, "wlp2s0"), .wifi),
            (link(6, "wwan0", hardware: ARPHardware.rawIP), .cellular),
            (link(7, "usb0"), .ethernet),
            (link(8, "wwan0"), .cellular),
            (link(9, "ppp0", hardware: ARPHardware.ppp), .cellular),
            (link(10, "tun0", hardware: ARPHardware.none, kind: "tun"), .vpn),
            (link(11, "tap0", kind: "tun"), .vpn),
            (link(12, "wg0", hardware: ARPHardware.none, kind: "wireguard"), .vpn),
            (link(13, "gre1", hardware: ARPHardware.ipGRE), .vpn),
            (link(14, "mon0", hardware: ARPHardware.ieee80211Radiotap), .wifi),
        ]
        for (link, expected) in cases { XCTAssertEqual(classifier.type(of: link), expected, link.name) }
    }

    func testTheAppsOverrideWins() {
        var classifier = NetworkInterfaceClassifier { _ in "wlan" }
        classifier.overrides = ["wlp2s0": .cellular, "enp3s0": .vpn]
        XCTAssertEqual(classifier.type(of: link(1, "wlp2s0")), .cellular, "a phone's hotspot, say")
        XCTAssertEqual(classifier.type(of: link(2, "enp3s0")), .vpn)
        XCTAssertEqual(classifier.type(of: link(3, "wlan1")), .wifi)
    }

    func testSysfsLookupRefusesPathsOutOfTheDirectory() {
        XCTAssertNil(NetworkInterfaceClassifier.sysfsDeviceType("../../etc"))
        XCTAssertNil(NetworkInterfaceClassifier.sysfsDeviceType(".."))
        XCTAssertNil(NetworkInterfaceClassifier.sysfsDeviceType(""))
        XCTAssertNil(NetworkInterfaceClassifier.sysfsDeviceType("lo"), "loopback has no DEVTYPE")
    }

    /// One address per type, each with a default route: ethernet, Wi-Fi, VPN, cellular.
    private func fourNetworks(metrics: [String: UInt32] = [:]) -> NetworkState {
        var state = NetworkState()
        let devices: [(Int32, String, UInt16, String?, String)] = [
            (1, "lo", ARPHardware.loopback, nil, "127.0.0.1"),
            (2, "wwan0", ARPHardware.rawIP, nil, "10.64.0.2"),
            (3, "wg0", ARPHardware.none, "wireguard", "10.8.0.2"),
            (4, "wlp2s0", ARPHardware.ether, nil, "192.168.1.20"),
            (5, "enp3s0", ARPHardware.ether, nil, "192.168.10.20"),
        ]
        for (index, name, hardware, kind, address) in devices {
            let flags: UInt32 = index == 1 ? 0x49 : 0x1 | 0x40 | 0x1_0000
            state.apply(.link(NetworkLink(index: index, name: name, hardwareType: hardware, flags: flags, kind: kind)))
            if let ip = IPAddress(address) {
                state.apply(.address(InterfaceAddress(interfaceIndex: index, address: ip, prefixLength: index == 1 ? 8 : 24, scope: index == 1 ? 254 : 0)))
            }
            if index != 1 {
                state.apply(.route(NetworkRoute(isIPv6: false, outputInterface: index, metric: metrics[name] ?? 100 * UInt32(index))))
            }
        }
        return state
    }

    private let classifier = NetworkInterfaceClassifier { $0 == "wlp2s0" ? "wlan" : nil }

    func testSeedOrderEthernetWifiVPNCellular() {
        var state = fourNetworks()
        func preferred() -> String? { state.candidates(classifier: classifier).preferred(for: IPAddress("203.0.113.5"))?.interfaceName }
        XCTAssertEqual(state.candidates(classifier: classifier).map(\.type), [.ethernet, .loopback, .wifi, .vpn, .cellular])
        XCTAssertEqual(preferred(), "enp3s0")
        state.apply(.linkRemoved(index: 5))
        XCTAssertEqual(preferred(), "wlp2s0")
        state.apply(.link(NetworkLink(index: 4, name: "wlp2s0", hardwareType: ARPHardware.ether, flags: 0x1)))
        XCTAssertEqual(preferred(), "wg0", "Wi-Fi without carrier is not usable")
        state.apply(.addressRemoved(InterfaceAddress(interfaceIndex: 3, address: IPAddress("10.8.0.2")!, prefixLength: 24)))
        XCTAssertEqual(preferred(), "wwan0")
        state.apply(.routeRemoved(NetworkRoute(isIPv6: false, outputInterface: 2, metric: 200)))
        XCTAssertEqual(preferred(), "wwan0", "with no default route anywhere, the best outward address")
        state.apply(.linkRemoved(index: 2))
        XCTAssertEqual(preferred(), "lo", "loopback only when nothing else is up")
    }

    func testTypeWinsOverRouteMetric() {
        // Wi-Fi's default route has the lower metric, but Ethernet is the preferred type.
        let state = fourNetworks(metrics: ["wlp2s0": 50, "enp3s0": 600])
        XCTAssertEqual(state.candidates(classifier: classifier).preferred()?.interfaceName, "enp3s0")
    }

    func testAnOnLinkPeerNeedsNoDefaultRoute() {
        var state = NetworkState()
        state.apply(.link(link(2, "enp3s0")))
        state.apply(.address(InterfaceAddress(interfaceIndex: 2, address: IPAddress("172.16.5.2")!, prefixLength: 16)))
        state.apply(.link(link(3, "wlp2s0")))
        state.apply(.address(InterfaceAddress(interfaceIndex: 3, address: IPAddress("192.168.1.20")!, prefixLength: 24)))
        state.apply(.route(NetworkRoute(isIPv6: false, outputInterface: 3, metric: 600)))
        let candidates = state.candidates(classifier: classifier)
        XCTAssertEqual(candidates.preferred(for: IPAddress("172.16.9.9"))?.interfaceName, "enp3s0", "on the Ethernet's subnet")
        XCTAssertEqual(candidates.preferred(for: IPAddress("8.8.8.8"))?.interfaceName, "wlp2s0", "only Wi-Fi has a default route")
    }

    func testTentativeDeprecatedAndLinkLocalAddressesAreNotCandidates() {
        var state = NetworkState()
        state.apply(.link(link(2, "enp3s0")))
        for (address, flags) in [("2001:db8::1", UInt32(0x40)), ("2001:db8::2", 0x20), ("2001:db8::3", 0x08), ("fe80::1", 0), ("2001:db8::4", 0x100)] {
            state.apply(.address(InterfaceAddress(interfaceIndex: 2, address: IPAddress(address)!, prefixLength: 64, flags: flags)))
        }
        XCTAssertEqual(state.candidates(classifier: classifier).map(\.address), [IPAddress("2001:db8::4")!], "IFA_F_MANAGETEMPADDR is fine")
    }

    func testRemovingALinkForgetsItsAddressesAndRoutes() {
        var state = fourNetworks()
        XCTAssertTrue(state.apply(.linkRemoved(index: 5)))
        XCTAssertFalse(state.addresses.keys.contains { $0.interfaceIndex == 5 })
        XCTAssertFalse(state.defaultRoutes.contains { $0.outputInterface == 5 })
        XCTAssertFalse(state.apply(.linkRemoved(index: 5)), "nothing left to change")
        XCTAssertFalse(state.apply(.route(NetworkRoute(isIPv6: false, destinationPrefixLength: 24, outputInterface: 4))), "not a default route")
    }

    func testABurstIsOneChangeAfterTheQuietPeriodAndNeverLaterThanTheMaximum() {
        var coalescer = NetworkChangeCoalescer(quietPeriod: .milliseconds(250), maximumDelay: .milliseconds(1_000))
        XCTAssertNil(coalescer.deadline)
        coalescer.eventReceived(at: .milliseconds(0))
        coalescer.eventReceived(at: .milliseconds(100))
        XCTAssertEqual(coalescer.deadline, .milliseconds(350))
        XCTAssertFalse(coalescer.takeDue(at: .milliseconds(349)))
        XCTAssertTrue(coalescer.takeDue(at: .milliseconds(350)))
        XCTAssertNil(coalescer.deadline)
        XCTAssertFalse(coalescer.takeDue(at: .milliseconds(2_000)), "taken once")
        // A link that flaps every 200 ms: the change is still looked at 1 s after the first event.
        for t in stride(from: Int64(3_000), through: 5_000, by: 200) { coalescer.eventReceived(at: .milliseconds(t)) }
        XCTAssertEqual(coalescer.deadline, .milliseconds(4_000))
    }

    /// An address in use gone: due 25 ms after the burst's last event, not 250 ms; the next
    /// burst is patient again.
    func testAVanishedAddressMakesTheChangeDueSooner() {
        var coalescer = NetworkChangeCoalescer()
        coalescer.eventReceived(at: .milliseconds(10_000))
        coalescer.eventReceived(at: .milliseconds(10_001), urgent: true)
        coalescer.eventReceived(at: .milliseconds(10_002))
        XCTAssertEqual(coalescer.deadline, .milliseconds(10_027), "the whole step is in by then")
        XCTAssertTrue(coalescer.takeDue(at: .milliseconds(10_027)))
        coalescer.eventReceived(at: .milliseconds(11_000))
        XCTAssertEqual(coalescer.deadline, .milliseconds(11_250))
    }
}
