import VoiceEmbedded
import VoiceAddress
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceNetwork

/// The monitor against the kernel's own rtnetlink events, in a network namespace the test
/// creates and changes with `ip`: addresses added and renumbered, a link down and up, a more
/// preferred interface, and the app's overrides.
final class NetworkMonitorNamespaceTests: XCTestCase {
    private var namespace: NetworkNamespace?
    private var monitor: NetworkMonitor?
    private let reports = Locked<[[NetworkCandidate]]>([])
    /// What `onAddressesChanged` gave, and how many coalesced reports had come by then.
    private let early = Locked<[(addresses: [String], reportsBefore: Int)]>([])

    override func setUpWithError() throws {
        switch NetworkNamespace.requirement() {
        case .available: break
        case .skip(let why): throw XCTSkip(why)
        case .fail(let why): XCTFail(why)
        }
    }

    override func tearDown() {
        monitor?.stop()
        namespace?.delete()
    }

    private func start(_ namespace: NetworkNamespace, overrides: [String: NetworkInterfaceType] = [:]) throws -> NetworkMonitor {
        let reports = self.reports
        let early = self.early
        let monitor = try NetworkMonitor(
            classifier: NetworkInterfaceClassifier(overrides: overrides) { _ in nil }, namespacePath: namespace.path,
            onAddressesChanged: { candidates in
                let before = reports.withLock { $0.count }
                early.withLock { $0.append((candidates.map(\.address.description), before)) }
            }
        ) { candidates in reports.withLock { $0.append(candidates) } }
        self.monitor = monitor
        return monitor
    }

    /// Waits for a report whose preferred address (for a remote peer) is `interface`/`address`.
    private func waitForPreferred(_ address: String, file: StaticString = #filePath, line: UInt = #line) -> Int {
        let found = PollingWait.until(timeout: 5) {
            reports.withLock { $0.last?.preferred(for: IPAddress("203.0.113.1"))?.address.description == address }
        }
        let seen = reports.withLock { $0.map { $0.preferred(for: IPAddress("203.0.113.1"))?.description ?? "none" } }
        XCTAssertTrue(found, "waiting for \(address); reports so far: \(seen)", file: file, line: line)
        return reports.withLock { $0.count }
    }

    func testAddressesLinkStateAndPreferenceFollowTheKernel() throws {
        let ns = try NetworkNamespace()
        namespace = ns
        try ns.batch("link add wan0 type veth peer name wan0p", "link set wan0p up", "link set wan0 up")
        let monitor = try start(ns)

        // At start (after the first dump): loopback only.
        XCTAssertEqual(monitor.candidates.map(\.type), [.loopback, .loopback])
        XCTAssertEqual(reports.withLock { $0.count }, 1, "the first dump is reported at once")

        // An address and a default route: the veth is preferred.
        try ns.batch("addr add 10.30.0.2/24 dev wan0", "route add default via 10.30.0.1 dev wan0 metric 100")
        var count = waitForPreferred("10.30.0.2")
        XCTAssertEqual(monitor.candidates.preferred()?.interfaceName, "wan0")
        XCTAssertEqual(monitor.candidates.preferred()?.defaultRouteMetric, 100)

        // Renumbering onto a new subnet: the new address comes before the old one goes, and the
        // default route moves, in one burst: one report. The addresses were told at once,
        // before that report (media checks from the new address meanwhile).
        let earlyBefore = early.withLock { $0.count }
        try ns.batch(
            "addr add 10.31.0.3/24 dev wan0", "addr del 10.30.0.2/24 dev wan0",
            "route replace default via 10.31.0.1 dev wan0 metric 100")
        let renumbered = waitForPreferred("10.31.0.3")
        XCTAssertEqual(renumbered, count + 1, "the burst was coalesced into one change")
        let told = early.withLock { Array($0.dropFirst(earlyBefore)) }
        let toldNew = told.first { $0.addresses.contains("10.31.0.3") && !$0.addresses.contains("10.30.0.2") }
        XCTAssertEqual(toldNew?.reportsBefore, count, "the new address without the old, before the coalesced report: \(told)")
        count = renumbered

        // Link down: the kernel drops the route; the address stays but is unusable.
        try ns.ip("link", "set", "wan0", "down")
        _ = waitForPreferred("127.0.0.1")
        XCTAssertFalse(monitor.candidates.contains { $0.interfaceName == "wan0" })

        // Back up (the route must be put back, as a DHCP client or NetworkManager would).
        try ns.batch("link set wan0 up", "route add default via 10.31.0.1 dev wan0 metric 100")
        count = waitForPreferred("10.31.0.3")

        // A change that alters no candidate is not reported.
        try ns.batch("route add 198.51.100.0/24 via 10.31.0.1 dev wan0")
        XCTAssertFalse(PollingWait.until(timeout: 0.6) { reports.withLock { $0.count } > count }, "a non-default route changes nothing")
    }

    func testAMorePreferredInterfaceTakesOverAndOverridesReRankAtOnce() throws {
        let ns = try NetworkNamespace()
        namespace = ns
        try ns.batch(
            "link add vpn0 type veth peer name vpn0p", "link set vpn0p up", "link set vpn0 up",
            "addr add 10.8.0.2/24 dev vpn0", "route add default via 10.8.0.1 dev vpn0 metric 50")
        let monitor = try start(ns, overrides: ["vpn0": .vpn])
        _ = waitForPreferred("10.8.0.2")
        XCTAssertEqual(monitor.candidates.preferred()?.type, .vpn)

        // An Ethernet-class link appears with a worse metric: the type wins, and the call would move.
        try ns.batch(
            "link add eth1 type veth peer name eth1p", "link set eth1p up", "link set eth1 up",
            "addr add 10.40.0.2/24 dev eth1", "route add default via 10.40.0.1 dev eth1 metric 600")
        _ = waitForPreferred("10.40.0.2")

        // It goes away: back to the VPN.
        try ns.ip("link", "del", "eth1")
        _ = waitForPreferred("10.8.0.2")

        // The app says vpn0 is really Ethernet and nothing else changes: re-ranked without an event.
        try ns.batch(
            "link add wl0 type veth peer name wl0p", "link set wl0p up", "link set wl0 up",
            "addr add 10.50.0.2/24 dev wl0", "route add default via 10.50.0.1 dev wl0 metric 10")
        monitor.setOverrides(["vpn0": .vpn, "wl0": .ethernet])
        _ = waitForPreferred("10.50.0.2")
        monitor.setOverrides(["vpn0": .ethernet, "wl0": .cellular])
        _ = waitForPreferred("10.8.0.2")
    }

    /// The handler may stop the monitor (an owner dropping its last reference there, say):
    /// no deadlock, and no later report.
    func testStoppingFromTheHandlerDoesNotWaitForItself() throws {
        let ns = try NetworkNamespace()
        namespace = ns
        try ns.batch("link add wan0 type veth peer name wan0p", "link set wan0p up", "link set wan0 up")
        let box = Locked<NetworkMonitor?>(nil)
        let returned = Locked(0)
        let monitor = try NetworkMonitor(classifier: NetworkInterfaceClassifier { _ in nil }, namespacePath: ns.path) { _ in
            guard let monitor = box.withLock({ $0 }) else { return }
            monitor.stop()
            returned.withLock { $0 += 1 }
        }
        box.withLock { $0 = monitor }
        try ns.batch("addr add 10.30.0.2/24 dev wan0", "route add default via 10.30.0.1 dev wan0")
        XCTAssertTrue(PollingWait.until(timeout: 5) { returned.withLock { $0 } == 1 }, "stop() returned on the monitor's thread")
        try ns.batch("addr add 10.31.0.2/24 dev wan0")
        XCTAssertFalse(PollingWait.until(timeout: 0.6) { returned.withLock { $0 } > 1 }, "no report after stop")
        box.withLock { $0 = nil }
    }

    func testAMissingNamespaceIsATypedError() {
        XCTAssertThrowsError(try NetworkMonitor(namespacePath: "/run/netns/no-such-namespace") { _ in }) { error in
            XCTAssertTrue("\(error)".contains("No such file"), "\(error)")
        }
    }
}
