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

    func testAWildcardSocketOffersAHostCandidatePerAddressOfItsFamilyInOrder() {
        let ice = SIPUserAgent.iceParameters(
            host: "192.0.2.10", port: 40_000, mapped: nil, stunServer: nil,
            otherHosts: ["198.51.100.7", "2001:db8::1", "192.0.2.10", "203.0.113.5"])
        let found = candidates(ice)
        XCTAssertEqual(found.map(\.address.description), ["192.0.2.10:40000", "198.51.100.7:40000", "203.0.113.5:40000"])
        XCTAssertTrue(found.allSatisfy { $0.kind == .host && $0.base == $0.address })
        XCTAssertEqual(found.map(\.priority), found.map(\.priority).sorted(by: >), "the advertised address first")
        XCTAssertEqual(Set(found.map(\.foundation)).count, 3, "one foundation per base address")
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
                host: "192.0.2.10", port: 40_000, mapped: mapped, stunServer: nil, relay: relay.candidate, otherHosts: ["198.51.100.7"]))
        XCTAssertEqual(all.map(\.kind), [.host, .serverReflexive, .host, .relayed])
        let relayed = try XCTUnwrap(all.last)
        XCTAssertEqual(relayed.address.description, "203.0.113.1:50000")
        XCTAssertEqual(relayed.relatedAddress?.description, "198.51.100.9:61000", "raddr: the mapped address")
        XCTAssertLessThan(relayed.priority, all.dropLast().map(\.priority).min() ?? 0)

        let only = candidates(
            SIPUserAgent.iceParameters(
                host: "192.0.2.10", port: 40_000, mapped: mapped, stunServer: nil, relay: relay.candidate, policy: .relay, otherHosts: ["198.51.100.7"]))
        XCTAssertEqual(only.map(\.kind), [.relayed], "relay only: none of the host's addresses")
        XCTAssertEqual(only.first?.relatedAddress?.description, "0.0.0.0:0", "nor the NAT's")
    }
}
