import Foundation
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

/// Calls through a real NAT (``NATCall``): a router namespace masquerading our client with an
/// nftables rule, Kamailio, coturn and the far party outside.
final class CallNATTests: XCTestCase {
    private var directory: String?

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    private func scenario() throws -> NATCall {
        let voicecall = try namespaceScenarioVoicecall(needing: ["kamailio", "turnserver", "nft"])
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "nat")
        self.directory = directory
        return NATCall(voicecall: voicecall, directory: directory)
    }

    private func checkAudio(_ result: NATCall.Result, file: StaticString = #filePath, line: UInt = #line) {
        for side in ["nated", "far"] {
            let samples = result.heard[side] ?? []
            XCTAssertGreaterThan(samples.count, 48_000 * 5, "\(side) recorded the call", file: file, line: line)
            let alignment = SpectralSimilarity(playedInALoop: result.played[side] ?? [], in: Array(samples.suffix(48_000 * 3)))
            XCTAssertGreaterThan(alignment.score, 0.75, "\(side) hears the other: \(alignment)", file: file, line: line)
            XCTAssertLessThanOrEqual(result.gapMilliseconds[side] ?? .max, 500, "\(side)'s longest gap", file: file, line: line)
        }
    }

    /// A relayed call went through: the callbacks, the relayed pair, both ends exited cleanly,
    /// and the audio both ways.
    private func checkRelayedCall(
        _ result: NATCall.Result, callbacks: [String] = ["connected", "disconnected"], file: StaticString = #filePath, line: UInt = #line
    ) {
        let logs = "nated:\n\(result.natedLog)\nfar:\n\(result.farLog.suffix(6_000))\ncoturn:\n\(result.coturnLog.suffix(3_000))"
        XCTAssertEqual(result.natedCallbacks, callbacks, logs, file: file, line: line)
        XCTAssertTrue(result.natedLog.contains("media path: relay 10.9.0.1:"), "the relayed pair carries the call:\n\(logs)", file: file, line: line)
        XCTAssertEqual(result.natedExit, 0, logs, file: file, line: line)
        XCTAssertEqual(result.farExit, 0, logs, file: file, line: line)
        checkAudio(result, file: file, line: line)
    }

    /// Without STUN: our client's Contact and SDP name its private address, which nothing
    /// outside can reach. Its call through Kamailio still works: responses follow rport, and the
    /// far party sends its media to where our authenticated media comes from (the NAT).
    func testWithoutSTUNACallThroughTheNATWorksByRportAndSymmetricRTP() throws {
        let result = try scenario().runWithoutSTUN()
        let logs = "nated:\n\(result.natedLog)\nfar:\n\(result.farLog)\nkamailio:\n\(result.kamailioLog.suffix(2_000))"
        XCTAssertEqual(result.natedCallbacks, ["connected", "disconnected"], logs)
        XCTAssertEqual(result.natedExit, 0, logs)
        XCTAssertEqual(result.farExit, 0, "our BYE reached the far party through the NAT:\n\(logs)")
        checkAudio(result)
    }

    /// With STUN: our client learns the NAT's address and advertises it in Contact (it is
    /// reached by name through Kamailio, which has no route to the private network) and in SDP;
    /// the far party's BYE reaches it through the NAT's mapping.
    func testWithSTUNTheNATsAddressIsAdvertisedAndTheClientIsReachedByName() throws {
        let result = try scenario().runWithSTUN()
        let logs = "nated:\n\(result.natedLog)\nfar:\n\(result.farLog.suffix(6_000))\nkamailio:\n\(result.kamailioLog.suffix(2_000))"
        XCTAssertTrue(result.natedLog.contains("contact sip:alice@10.5.0.1:"), "Contact carries the NAT's address:\n\(logs)")
        XCTAssertTrue(result.farLog.contains("c=IN IP4 10.5.0.1"), "the answer's SDP names the NAT's address:\n\(logs)")
        XCTAssertFalse(result.farLog.contains("c=IN IP4 10.0.0.2"), "the private address is not advertised:\n\(logs)")
        XCTAssertEqual(result.natedCallbacks, ["connected", "disconnected"], logs)
        XCTAssertEqual(result.natedExit, 0, "the far party's BYE reached us:\n\(logs)")
        XCTAssertEqual(result.farExit, 0, logs)
        checkAudio(result)
    }

    /// Behind a firewall that passes only SIP and TURN over UDP: without a TURN server the
    /// call has no media path and fails with 53405; with coturn as its TURN server (the default
    /// policy, every candidate offered), ICE finds the relayed pair and the call has audio both
    /// ways through the relay.
    func testBehindAFirewallThatOnlyPassesTURNTheCallGoesThroughTheRelay() throws {
        let scenario = try scenario()
        let blocked = try scenario.runThroughAFirewallThatOnlyPassesTURN(turn: false)
        XCTAssertTrue(blocked.natedLog.contains("failed to connect: 53405"), "no path without the relay:\n\(blocked.natedLog)")

        let result = try scenario.runThroughAFirewallThatOnlyPassesTURN(turn: true)
        XCTAssertTrue(result.coturnLog.contains("CHANNEL_BIND processed, success"), result.coturnLog)
        checkRelayedCall(result)
    }

    /// Behind a firewall that lets no UDP out but SIP's: the call reaches coturn over TCP
    /// (RFC 8656 over TCP) and its audio goes through the relay both ways.
    func testBehindAFirewallThatBlocksUDPTheCallReachesTheRelayOverTCP() throws {
        let result = try scenario().runThroughAFirewallThatBlocksUDPWithTURNOverTCP()
        XCTAssertTrue(result.coturnLog.contains("tcp or tls connected to: 10.5.0.1:"), "reached over TCP, through the NAT:\n\(result.coturnLog)")
        checkRelayedCall(result)
    }

    /// Both parties behind NATs that drop what nobody inside asked for and let only SIP and
    /// TURN out: without TURN the call has no media path (53405); with it, each side offers
    /// its relayed candidate, ICE finds a relayed pair, and the audio goes both ways.
    func testWithBothPartiesBehindNATsOnlyTheRelayedPairWorks() throws {
        var scenario = try scenario()
        scenario.callSeconds = 6
        let blocked = try scenario.runWithBothBehindNATs(turn: false)
        XCTAssertTrue(blocked.natedLog.contains("failed to connect: 53405"), "no path without the relay:\n\(blocked.natedLog)\n\(blocked.farLog)")

        checkRelayedCall(try scenario.runWithBothBehindNATs(turn: true))
    }

    /// Relay only, and renumbered behind the NAT mid-call: the stream allocates a new relay
    /// from its new address before the re-INVITE, whose ICE restart offers only that relayed
    /// candidate (none of the host's addresses), and the audio goes on through it.
    func testARelayOnlyClientThatMovesGetsANewRelayAndKeepsItsAudio() throws {
        var scenario = try scenario()
        scenario.callSeconds = 10
        let result = try scenario.runRelayOnlyWithRenumbering()
        checkRelayedCall(result, callbacks: ["connected", "reconnecting: 53001", "reconnected", "disconnected"])
        let candidates = result.farLog.components(separatedBy: "\n").filter { $0.hasPrefix("a=candidate:") }
        // The far party's own are host candidates on 10.9.0.1; ours only relayed ones, in the
        // offer and in the restart (two allocations, two relayed ports).
        XCTAssertFalse(candidates.isEmpty, result.farLog)
        XCTAssertFalse(candidates.contains { $0.contains("10.0.0.") || $0.contains("10.5.0.") }, "none of our addresses: \(candidates)")
        XCTAssertGreaterThanOrEqual(Set(candidates.filter { $0.contains("typ relay") }).count, 2, "\(candidates)")
        XCTAssertFalse(result.farLog.contains("10.0.0.3"), "the new private address is never revealed")
        XCTAssertGreaterThanOrEqual(result.coturnLog.components(separatedBy: "ALLOCATE processed, success").count - 1, 2, "a new allocation after the move")
    }

    /// With STUN, and our client renumbered behind the NAT mid-call: it learns its new mapping
    /// (the NAT gives the new private address another port), re-registers and re-INVITEs with
    /// it, the audio goes on, and the far party's BYE reaches it through the new mapping.
    func testWithSTUNARenumberingBehindTheNATIsLearnedAgain() throws {
        var scenario = try scenario()
        scenario.callSeconds = 10
        let result = try scenario.runWithSTUNAndRenumbering()
        let logs = "nated:\n\(result.natedLog)\nfar:\n\(result.farLog.suffix(8_000))"
        XCTAssertEqual(result.natedCallbacks, ["connected", "reconnecting: 53001", "reconnected", "disconnected"], logs)
        XCTAssertEqual(result.natedExit, 0, "the far party's BYE reached the new mapping:\n\(logs)")
        XCTAssertEqual(result.farExit, 0, logs)
        // The re-INVITE the far party got names the NAT's address with the new mapping's port.
        let contacts = result.farLog.components(separatedBy: "\n").filter { $0.hasPrefix("Contact: <sip:alice@") }
        XCTAssertGreaterThanOrEqual(Set(contacts).count, 2, "a new Contact after the change: \(contacts)")
        XCTAssertTrue(contacts.allSatisfy { $0.contains("@10.5.0.1:") }, "always the NAT's address: \(contacts)")
        checkAudio(result)
    }
}
