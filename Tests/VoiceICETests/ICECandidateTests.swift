import VoiceAddress
import VoiceNetwork
import XCTest

@testable import VoiceICE

/// Candidate and pair priorities, foundations and check-list formation (RFC 8445 §5.1.2, §6.1.2).
final class ICECandidateTests: XCTestCase {
    private func address(_ ip: String, _ port: UInt16) -> TransportAddress {
        TransportAddress(ip: IPAddress(ip) ?? IPAddress(bytes: [0, 0, 0, 0])!, port: port)
    }

    func testPrioritiesFollowTheFormulaAndMatchWhatPeersWrite() {
        // aiortc and rtpengine write 2130706431 for a host candidate of component 1: type
        // preference 126, local preference 65535.
        XCTAssertEqual(ICECandidate.priority(kind: .host, localPreference: 65_535, component: 1), 2_130_706_431)
        XCTAssertEqual(ICECandidate.priority(kind: .host, localPreference: 65_535, component: 2), 2_130_706_430)
        XCTAssertEqual(ICECandidate.priority(kind: .serverReflexive, localPreference: 65_535, component: 1), 1_694_498_815)
        XCTAssertEqual(ICECandidate.priority(kind: .peerReflexive, localPreference: 65_535, component: 1), 1_862_270_975)
        XCTAssertEqual(ICECandidate.priority(kind: .relayed, localPreference: 65_535, component: 1), 16_777_215)
        // Chromium's 2122194687: host, component 1, its local preference for the interface.
        let chromium: UInt32 = 2_122_194_687
        XCTAssertEqual(chromium >> 24, 126)
        XCTAssertEqual(chromium & 0xFF, 255)
        XCTAssertEqual(ICECandidate.priority(kind: .host, localPreference: UInt16((chromium >> 8) & 0xFFFF), component: 1), chromium)
    }

    func testFoundationsAreSharedExactlyByTypeBaseAndServer() {
        let base = IPAddress("192.0.2.1")!
        let stun = IPAddress("198.51.100.1")!
        let a = ICECandidate.foundation(kind: .serverReflexive, base: base, server: stun)
        XCTAssertEqual(a, ICECandidate.foundation(kind: .serverReflexive, base: base, server: stun))
        XCTAssertNotEqual(a, ICECandidate.foundation(kind: .host, base: base, server: nil))
        XCTAssertNotEqual(a, ICECandidate.foundation(kind: .serverReflexive, base: IPAddress("192.0.2.2")!, server: stun))
        XCTAssertNotEqual(a, ICECandidate.foundation(kind: .serverReflexive, base: base, server: IPAddress("198.51.100.2")!))
        XCTAssertEqual(a.utf8.count, 8)
        XCTAssertTrue(a.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }, "ice-chars")
    }

    func testPairPriorityIsTheSameNumberOnBothSides() {
        let l = ICECandidate.local(.host, address: address("192.0.2.1", 5000), base: address("192.0.2.1", 5000))
        let r = ICECandidate.local(.serverReflexive, address: address("203.0.113.9", 6000), base: address("10.0.0.9", 6000))
        let mine = ICECandidatePair(local: l, remote: r).priority(localIsControlling: true)
        let theirs = ICECandidatePair(local: r, remote: l).priority(localIsControlling: false)
        XCTAssertEqual(mine, theirs, "both agents order the pair alike")
        let g = UInt64(l.priority), d = UInt64(r.priority)
        XCTAssertEqual(mine, (min(g, d) << 32) + 2 * max(g, d) + 1)
        XCTAssertEqual(ICECandidatePair(local: l, remote: l).priority(localIsControlling: true), (g << 32) + 2 * g, "equal priorities: no tie bit")
    }

    func testTheCheckListPairsByFamilyReplacesReflexiveByTheBasePrunesAndUnfreezesOnePerFoundation() {
        let host4 = ICECandidate.local(.host, address: address("10.0.0.1", 5000), base: address("10.0.0.1", 5000))
        let host6 = ICECandidate.local(.host, address: address("fd00::1", 5002), base: address("fd00::1", 5002), localPreference: 65_000)
        let srflx = ICECandidate.local(
            .serverReflexive, address: address("203.0.113.1", 40000), base: address("10.0.0.1", 5000), server: address("198.51.100.1", 3478))
        let remoteHost = ICECandidate.local(.host, address: address("10.0.0.2", 6000), base: address("10.0.0.2", 6000))
        let remoteRelay = ICECandidate.local(.relayed, address: address("198.51.100.7", 50000), base: address("198.51.100.7", 50000))
        let remote6 = ICECandidate.local(.host, address: address("fd00::2", 6002), base: address("fd00::2", 6002))
        let list = ICECheckList(local: [host4, host6, srflx], remote: [remoteHost, remoteRelay, remote6], localIsControlling: true)

        // IPv4 locals with the two IPv4 remotes, the IPv6 one with the IPv6 remote; the
        // reflexive candidate's pairs are the host's, pruned: 2 + 1 pairs.
        XCTAssertEqual(list.pairs.count, 3)
        XCTAssertTrue(list.pairs.allSatisfy { $0.local.kind == .host })
        XCTAssertTrue(list.pairs.allSatisfy { $0.local.address.ip.isIPv6 == $0.remote.address.ip.isIPv6 })
        let priorities = list.pairs.map { $0.priority(localIsControlling: true) }
        XCTAssertEqual(priorities, priorities.sorted(by: >), "highest first")
        XCTAssertEqual(list.pairs.first?.remote.address, address("10.0.0.2", 6000))
        // Three foundations, one pair each: all waiting.
        XCTAssertEqual(Set(list.pairs.map(\.foundation)).count, 3)
        XCTAssertTrue(list.pairs.allSatisfy { $0.state == .waiting })

        // Two pairs of one foundation (two remote hosts behind one base): one waits, one is frozen.
        let remoteHost2 = ICECandidate.local(.host, address: address("10.0.0.2", 6100), base: address("10.0.0.2", 6100))
        let two = ICECheckList(local: [host4], remote: [remoteHost, remoteHost2], localIsControlling: false)
        XCTAssertEqual(two.pairs.map(\.state).sorted { "\($0)" < "\($1)" }, [.frozen, .waiting])
    }

    func testTheCheckListIsCappedAndAPeerReflexivePairGoesInItsPlace() {
        let local = (0..<20).map { i in ICECandidate.local(.host, address: address("10.0.0.\(i + 1)", 5000), base: address("10.0.0.\(i + 1)", 5000), localPreference: UInt16(60_000 + i)) }
        let remote = (0..<20).map { i in ICECandidate.local(.host, address: address("10.1.0.\(i + 1)", 6000), base: address("10.1.0.\(i + 1)", 6000)) }
        var list = ICECheckList(local: local, remote: remote, localIsControlling: true)
        XCTAssertEqual(list.pairs.count, ICECheckList.maximumPairs)

        let prflx = ICECandidate(
            kind: .peerReflexive, component: 1, address: address("10.9.9.9", 7000), base: address("10.9.9.9", 7000),
            priority: ICECandidate.priority(kind: .peerReflexive, localPreference: 65_535, component: 1), foundation: "prflx1")
        let index = list.insert(ICECandidatePair(local: local[19], remote: prflx, state: .waiting))
        let priorities = list.pairs.map { $0.priority(localIsControlling: true) }
        XCTAssertEqual(priorities, priorities.sorted(by: >))
        XCTAssertEqual(list.pairs[index].remote.kind, .peerReflexive)
        XCTAssertEqual(list.index(localBase: local[19].base, remote: prflx.address), index)
    }
}
