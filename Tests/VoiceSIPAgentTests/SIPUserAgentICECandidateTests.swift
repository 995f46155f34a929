import VoiceAddress
import VoiceSTUN
import XCTest

@testable import VoiceICE
@testable import VoiceNetwork
@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceSupport

/// What a DTLS-SRTP call's SDP offers as ICE candidates: a host candidate on each of the host's
/// addresses (the advertised one first), the server-reflexive one, the relayed one; only the
/// relayed one under the relay-only policy.
final class SIPUserAgentICECandidateTests: XCTestCase {
    private func candidates(_ parameters: SDPICEParameters) -> [ICECandidate] {
        parameters.candidates.compactMap(ICECandidate.init(remote:))
    }

    /// A `::` socket carries both families, so every address gets a host candidate; RFC 8421's
    /// preferences interleave them, IPv6 first, each family in the order given.
    func testAWildcardSocketOffersAHostCandidatePerAddressOfEitherFamilyInterleaved() {
        let ice = SIPUserAgent.iceParameters(
            host: "192.0.2.10", port: 40_000, mapped: nil, stunServer: nil,
            otherHosts: ["198.51.100.7", "2001:db8::1", "192.0.2.10", "203.0.113.5", "2001:db8::2"])
        let found = candidates(ice)
        XCTAssertEqual(
            found.map(\.address.description),
            ["192.0.2.10:40000", "198.51.100.7:40000", "[2001:db8::1]:40000", "203.0.113.5:40000", "[2001:db8::2]:40000"],
            "the advertised address first in the SDP")
        XCTAssertTrue(found.allSatisfy { $0.kind == .host && $0.base == $0.address })
        let byPriority = found.sorted { $0.priority > $1.priority }.map(\.address.ip.description)
        XCTAssertEqual(byPriority, ["2001:db8::1", "192.0.2.10", "2001:db8::2", "198.51.100.7", "203.0.113.5"], "interleaved, IPv6 first")
        XCTAssertEqual(Set(found.map(\.priority)).count, 5, "each address its own preference")
        XCTAssertEqual(Set(found.map(\.foundation)).count, 5, "one foundation per base address")
    }

    func testLocalPreferencesInterleaveTheFamilies() {
        let ips = ["10.0.0.1", "10.0.0.2", "10.0.0.3", "fd00::1"].compactMap(IPAddress.init)
        let preferences = ICECandidate.localPreferences(interleaving: ips)
        XCTAssertEqual(preferences[ips[3]], 65_535)
        XCTAssertEqual(preferences[ips[0]], 65_279)
        XCTAssertEqual(preferences[ips[1]], 65_023, "after IPv6 runs out, IPv4 goes on in order")
        XCTAssertEqual(preferences[ips[2]], 64_767)
        XCTAssertTrue(ICECandidate.localPreferences(interleaving: []).isEmpty)
    }

    func testTheRelayedCandidateComesLastAndAloneWhenRelayOnly() throws {
        let relay = TURNRelay(
            server: TransportAddress(ip: IPAddress("203.0.113.1")!, port: 3478),
            client: TURNClient(username: "u", password: "p", random: SecureRandomNumberGenerator()),
            relayed: TransportAddress(ip: IPAddress("203.0.113.1")!, port: 50_000),
            mapped: TransportAddress(ip: IPAddress("198.51.100.9")!, port: 61_000))
        let mapped = TransportAddress(ip: IPAddress("198.51.100.9")!, port: 61_000)
        let all = candidates(
            SIPUserAgent.iceParameters(
                host: "192.0.2.10", port: 40_000, mapped: mapped, stunServer: nil, relays: relay.candidates, otherHosts: ["198.51.100.7"]))
        XCTAssertEqual(all.map(\.kind), [.host, .serverReflexive, .host, .relayed])
        let relayed = try XCTUnwrap(all.last)
        XCTAssertEqual(relayed.address.description, "203.0.113.1:50000")
        XCTAssertEqual(relayed.relatedAddress?.description, "198.51.100.9:61000", "raddr: the mapped address")
        XCTAssertLessThan(relayed.priority, all.dropLast().map(\.priority).min() ?? 0)

        let only = candidates(
            SIPUserAgent.iceParameters(
                host: "192.0.2.10", port: 40_000, mapped: mapped, stunServer: nil, relays: relay.candidates, policy: .relay, otherHosts: ["198.51.100.7"]))
        XCTAssertEqual(only.map(\.kind), [.relayed], "relay only: none of the host's addresses")
        XCTAssertEqual(only.first?.relatedAddress?.description, "0.0.0.0:0", "nor the NAT's")
    }
}
