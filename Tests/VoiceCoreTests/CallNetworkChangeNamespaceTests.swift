import Foundation
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

/// Network changes for real (``NetworkChangeCall``): our client runs `voicecall … --listen
/// auto` in a network namespace and the test changes its addresses with `ip` mid-call. Checked
/// from the callbacks and both recordings, over UDP, TCP and TLS. Each run prints a
/// `netchange:` line with its figures (media gap, time to reconnected).
final class CallNetworkChangeNamespaceTests: XCTestCase {
    private var directory: String?

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// The scenario over `transport`; TLS with the namespace certificate (IP SANs for every
    /// address the two sides use) and its CA.
    func scenario(_ transport: String = "udp") throws -> NetworkChangeCall {
        let voicecall = try namespaceScenarioVoicecall()
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "netchange")
        self.directory = directory
        var scenario = NetworkChangeCall(voicecall: voicecall, directory: directory)
        scenario.transport = transport
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/tls-netns").path
        scenario.tls = (fixtures + "/peer.pem", fixtures + "/peer.key", fixtures + "/ca.pem")
        return scenario
    }

    func requireKamailio() throws { _ = try namespaceScenarioVoicecall(needing: ["kamailio"]) }

    /// Checks a call that lived through a change: it ended normally, reconnected after each
    /// `isReconnecting`, kept its audio at both ends within `maximumGap`, and the far party,
    /// whose address never changed, saw no callback. With `farMediaMayPause` (an outage as long
    /// as the far party's 3 s media-inactivity threshold) the far party may see its media
    /// reconnect (53405, then `reconnected`), never a signaling one.
    func check(
        _ result: NetworkChangeCall.Result, reconnections: Int, maximumGap: Int, farMediaMayPause: Bool = false,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let logs = "mover:\n\(result.moverLog)\nfar:\n\(result.farLog)"
        XCTAssertEqual(result.moverExit, 0, logs, file: file, line: line)
        XCTAssertEqual(result.farExit, 0, logs, file: file, line: line)
        let callbacks = result.moverCallbacks
        XCTAssertEqual(callbacks.first, "connected", logs, file: file, line: line)
        XCTAssertEqual(callbacks.last, "disconnected", logs, file: file, line: line)
        XCTAssertEqual(callbacks.filter { $0 == "reconnecting: 53001" }.count, reconnections, "signaling reconnections:\n\(logs)", file: file, line: line)
        XCTAssertEqual(
            callbacks.filter { $0.hasPrefix("reconnecting") }.count, callbacks.filter { $0 == "reconnected" }.count,
            "each reconnecting ends reconnected:\n\(logs)", file: file, line: line)
        XCTAssertEqual(callbacks.dropLast().last, "reconnected", logs, file: file, line: line)
        if farMediaMayPause {
            let far = NetworkChangeCall.callbacks(in: result.farLog).filter { $0.hasPrefix("reconnect") }
            let pairs = stride(from: 0, to: far.count, by: 2).map { Array(far[$0..<min($0 + 2, far.count)]) }
            XCTAssertTrue(
                pairs.allSatisfy { $0 == ["reconnecting: 53405", "reconnected"] },
                "the far party's media may pause and come back, its signaling never: \(far)\n\(logs)", file: file, line: line)
        } else {
            XCTAssertFalse(result.farLog.contains("call: reconnecting"), "the far party's address did not change:\n\(logs)", file: file, line: line)
        }
        checkAudio(heard: result.heard, played: result.played, gaps: result.gapMilliseconds, maximumGap: maximumGap, file: file, line: line)
    }

    /// Both sides recorded the call, heard no gap over `maximumGap` ms, and hear the other's
    /// tone in its last 3 s.
    func checkAudio(
        heard: [String: [Int16]], played: [String: [Int16]], gaps: [String: Int], maximumGap: Int,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        for side in ["mover", "far"] {
            let samples = heard[side] ?? []
            XCTAssertGreaterThan(samples.count, 48_000 * 7, "\(side) recorded the call", file: file, line: line)
            XCTAssertLessThanOrEqual(gaps[side] ?? .max, maximumGap, "\(side)'s longest gap", file: file, line: line)
            let alignment = SpectralSimilarity(playedInALoop: played[side] ?? [], in: Array(samples.suffix(48_000 * 3)))
            XCTAssertGreaterThan(alignment.score, 0.75, "\(side) at the end: \(alignment)", file: file, line: line)
        }
    }

    /// The figures of one run, for the closing report.
    func report(_ name: String, _ transport: String, gaps: [String: Int], reconnect: Int?) {
        let gap = gaps.values.max() ?? -1
        print("netchange: case=\(name) transport=\(transport) media_gap_ms=\(gap) reconnect_ms=\(reconnect.map(String.init) ?? "-") gaps=\(gaps)")
    }
}

// Case 1: DHCP renumbering on the call's link. Case 2: the only link down for 3 s and back.
extension CallNetworkChangeNamespaceTests {
    func renumbering(over transport: String) throws {
        let result = try scenario(transport).run(.renumber)
        check(result, reconnections: 1, maximumGap: 1_500)
        XCTAssertEqual(result.moverCallbacks, ["connected", "reconnecting: 53001", "reconnected", "disconnected"], result.moverLog)
        let reconnect = try XCTUnwrap(result.reconnectMilliseconds, result.moverLog)
        XCTAssertLessThan(reconnect, 2_000, "reconnected within 2 s of the change")
        report("1-renumber", transport, gaps: result.gapMilliseconds, reconnect: reconnect)
    }

    func testRenumberingMovesTheCallAndTheAudioGoesOn() throws { try renumbering(over: "udp") }

    /// Case 1 with baresip as the far party: a phone we did not write takes our re-INVITE from
    /// the new address and sends its audio there.
    func testRenumberingWithBaresipAsTheFarParty() throws {
        _ = try namespaceScenarioVoicecall(needing: ["baresip"])
        let result = try scenario().runWithBaresip()
        let logs = "mover:\n\(result.moverLog)\nbaresip:\n\(result.farLog.suffix(4_000))"
        XCTAssertEqual(result.moverCallbacks, ["connected", "reconnecting: 53001", "reconnected", "disconnected"], logs)
        XCTAssertEqual(result.moverExit, 0, logs)
        checkAudio(heard: result.heard, played: result.played, gaps: result.gapMilliseconds, maximumGap: 1_500)
        report("1-renumber-baresip", "udp", gaps: result.gapMilliseconds, reconnect: result.reconnectMilliseconds)
    }
    func testRenumberingOverTCP() throws { try renumbering(over: "tcp") }
    func testRenumberingOverTLS() throws { try renumbering(over: "tls") }

    /// The gap is at most the outage plus 1.5 s; the call keeps its SID (one call throughout).
    /// The far party hears nothing for the outage plus the ICE restart (3.3 s in a CI run), past
    /// its 3 s media-inactivity threshold: it may report its media reconnecting, as Twilio's
    /// SDK does when ICE disconnects, and must then report it reconnected.
    func linkFlap(over transport: String) throws {
        let result = try scenario(transport).run(.linkFlap)
        check(result, reconnections: 1, maximumGap: 3_000 + 1_500, farMediaMayPause: true)
        report("2-link-flap", transport, gaps: result.gapMilliseconds, reconnect: result.reconnectMilliseconds)
    }

    func testALinkDownForThreeSecondsAndBackReconnectsTheCall() throws { try linkFlap(over: "udp") }
    func testALinkDownForThreeSecondsAndBackOverTCP() throws { try linkFlap(over: "tcp") }
    func testALinkDownForThreeSecondsAndBackOverTLS() throws { try linkFlap(over: "tls") }
}

// A change that does not touch the call's address: a less preferred link the call does not use
// goes down, comes back, and gains an address. No callback, no gap, no re-INVITE.
extension CallNetworkChangeNamespaceTests {
    func testAChangeThatDoesNotTouchTheCallsAddressCausesNothing() throws {
        let result = try scenario().run(.unrelatedChange)
        let logs = "mover:\n\(result.moverLog)\nfar:\n\(result.farLog)"
        XCTAssertEqual(result.moverExit, 0, logs)
        XCTAssertEqual(result.farExit, 0, logs)
        XCTAssertEqual(result.moverCallbacks, ["connected", "disconnected"], logs)
        XCTAssertFalse(result.farLog.contains("call: reconnecting"), logs)
        checkAudio(heard: result.heard, played: result.played, gaps: result.gapMilliseconds, maximumGap: 200)
        report("unrelated-change", "udp", gaps: result.gapMilliseconds, reconnect: nil)
    }
}

// Case 3: the only link down past the reconnection timeout (5 s here): the mover ends with
// 53001 (its signaling could not be restored), the far party, whose media stopped, with 53405.
extension CallNetworkChangeNamespaceTests {
    func linkLost(over transport: String) throws {
        let result = try scenario(transport).run(.linkLost)
        let logs = "mover:\n\(result.moverLog)\nfar:\n\(result.farLog)"
        XCTAssertEqual(result.moverCallbacks.first, "connected", logs)
        XCTAssertEqual(result.moverCallbacks.dropFirst().first, "reconnecting: 53001", logs)
        XCTAssertTrue(result.moverLog.contains("call: disconnected: 53001"), logs)
        XCTAssertFalse(result.moverCallbacks.contains("reconnected"), logs)
        XCTAssertTrue(result.farLog.contains("call: reconnecting: 53405"), logs)
        XCTAssertTrue(result.farLog.contains("call: disconnected: 53405"), logs)
        XCTAssertEqual(result.moverExit, 1, logs)
        if let lost = NetworkChangeCall.time(of: "call: reconnecting: 53001", in: result.moverLog),
            let ended = NetworkChangeCall.time(of: "call: disconnected", in: result.moverLog)
        {
            XCTAssertEqual(ended - lost, 5.0, accuracy: 0.5, "ended at the reconnection timeout")
        }
        report("3-link-lost", transport, gaps: [:], reconnect: nil)
    }

    func testALinkDownPastTheReconnectionTimeoutEndsTheCallOnBothSides() throws { try linkLost(over: "udp") }
    func testALinkDownPastTheReconnectionTimeoutOverTCP() throws { try linkLost(over: "tcp") }
    func testALinkDownPastTheReconnectionTimeoutOverTLS() throws { try linkLost(over: "tls") }
}

// Case 4: an Ethernet-class link appears while the call is on a VPN-class one: the call moves
// to it; when it goes, the call moves back.
extension CallNetworkChangeNamespaceTests {
    func preferredLink(over transport: String) throws {
        let result = try scenario(transport).run(.preferredAppears)
        check(result, reconnections: 2, maximumGap: 1_500)
        report("4-preferred-link", transport, gaps: result.gapMilliseconds, reconnect: result.reconnectMilliseconds)
    }

    func testAMorePreferredLinkTakesTheCallAndLosingItMovesTheCallBack() throws { try preferredLink(over: "udp") }
    func testAMorePreferredLinkOverTCP() throws { try preferredLink(over: "tcp") }
    func testAMorePreferredLinkOverTLS() throws { try preferredLink(over: "tls") }
}

// Case 5: our client is called and renumbers while its phone rings: the call still connects,
// with no reconnecting callback (it was never connected on the old address), answered from the
// new address (Contact and `c=`), and the audio flows both ways.
extension CallNetworkChangeNamespaceTests {
    func renumberingWhileRinging(over transport: String) throws {
        let result = try scenario(transport).run(.renumberWhileRinging)
        let logs = "mover:\n\(result.moverLog)\nfar:\n\(result.farLog)"
        XCTAssertEqual(result.moverExit, 0, logs)
        XCTAssertEqual(result.farExit, 0, logs)
        XCTAssertEqual(result.moverCallbacks, ["connected", "disconnected"], logs)
        XCTAssertTrue(result.farLog.contains("call: connected"), logs)
        XCTAssertFalse(result.farLog.contains("call: reconnecting"), logs)
        checkAudio(heard: result.heard, played: result.played, gaps: result.gapMilliseconds, maximumGap: 1_500)
        report("5-renumber-while-ringing", transport, gaps: result.gapMilliseconds, reconnect: nil)
    }

    func testARenumberingWhileRingingStillConnectsAndUsesTheNewAddress() throws { try renumberingWhileRinging(over: "udp") }
    func testARenumberingWhileRingingOverTCP() throws { try renumberingWhileRinging(over: "tcp") }
    func testARenumberingWhileRingingOverTLS() throws { try renumberingWhileRinging(over: "tls") }
}

// Case 5, the caller's side: a better network appears while the call we placed rings. The old
// address stays, so the call goes on: an UPDATE in the early dialog (RFC 3311, without an offer)
// gives the callee our new Contact at once; once answered, a re-INVITE moves the media. No
// callback: the call was never connected on the old address.
extension CallNetworkChangeNamespaceTests {
    func betterLinkWhileRinging(over transport: String) throws {
        let result = try scenario(transport).run(.preferredAppearsWhileRinging)
        let logs = "mover:\n\(result.moverLog)\nfar:\n\(result.farLog.suffix(20_000))"
        XCTAssertEqual(result.moverExit, 0, logs)
        XCTAssertEqual(result.farExit, 0, logs)
        XCTAssertEqual(result.moverCallbacks, ["connected", "disconnected"], logs)
        XCTAssertFalse(result.farLog.contains("call: reconnecting"), logs)
        let update = result.farLog.components(separatedBy: "\n").drop { !($0.hasPrefix("UPDATE sip") && $0.contains("bob@")) }.prefix(12).joined(separator: "\n")
        XCTAssertFalse(update.isEmpty, "the far party got an UPDATE while ringing:\n\(logs)")
        XCTAssertTrue(update.contains("Contact: <sip") && update.contains("@10.1.0.2:"), "carrying the new Contact:\n\(update)")
        checkAudio(heard: result.heard, played: result.played, gaps: result.gapMilliseconds, maximumGap: 1_500)
        report("5b-better-link-while-ringing", transport, gaps: result.gapMilliseconds, reconnect: nil)
    }

    func testABetterLinkWhileOurCallRingsSendsAnUpdateAndTheCallMovesOnceAnswered() throws { try betterLinkWhileRinging(over: "udp") }
    func testABetterLinkWhileOurCallRingsOverTCP() throws { try betterLinkWhileRinging(over: "tcp") }
    func testABetterLinkWhileOurCallRingsOverTLS() throws { try betterLinkWhileRinging(over: "tls") }
}

// Case 6, from the side that stays: its peer renumbers and re-INVITEs from the new address,
// and it follows with no callback. Then an attacker elsewhere (10.9.0.66) sends 3 s of forged
// SRTP at its media ports: every forgery is refused and the stream is not captured: the audio
// goes on both ways to the end.
extension CallNetworkChangeNamespaceTests {
    func peerMovesUnderSpoofing(over transport: String) throws {
        var scenario = try scenario(transport)
        scenario.spoofsFarMedia = true
        let result = try scenario.run(.renumber)
        check(result, reconnections: 1, maximumGap: 1_500)
        XCTAssertGreaterThanOrEqual(result.spoofedPackets, 300, "the forgeries went out")
        XCTAssertGreaterThanOrEqual(result.farRefused, result.spoofedPackets, "every forgery was refused:\n\(result.farLog)")
        report("6-peer-moves-spoofed", transport, gaps: result.gapMilliseconds, reconnect: result.reconnectMilliseconds)
    }

    func testThePeerMovesOurSideFollowsAndForgedMediaCannotCaptureTheStream() throws { try peerMovesUnderSpoofing(over: "udp") }
    func testThePeerMovesUnderSpoofingOverTCP() throws { try peerMovesUnderSpoofing(over: "tcp") }
    func testThePeerMovesUnderSpoofingOverTLS() throws { try peerMovesUnderSpoofing(over: "tls") }
}

// Cases 7 and 8 through Kamailio: a registered client with no call is renumbered and a call
// placed by name 2 s later reaches it at the new address (it re-registered); renumbered again
// during that call, it moves the call through the proxy, and the far party's BYE reaches the
// new address along the dialog's route.
extension CallNetworkChangeNamespaceTests {
    func throughKamailio(over transport: String) throws {
        try requireKamailio()
        let result = try scenario(transport).runThroughProxy()
        let logs = "mover:\n\(result.moverLog)\nfar:\n\(result.farLog)\nkamailio:\n\(result.kamailioLog.suffix(3_000))"
        XCTAssertTrue(result.reachedAfterRenumbering, "the call by name reached the new address:\n\(logs)")
        XCTAssertEqual(result.moverCallbacks, ["connected", "reconnecting: 53001", "reconnected", "disconnected"], logs)
        XCTAssertEqual(result.moverExit, 0, "the far party's BYE ended the call cleanly:\n\(logs)")
        XCTAssertEqual(result.farExit, 0, logs)
        XCTAssertFalse(result.farLog.contains("call: reconnecting"), logs)
        checkAudio(heard: result.heard, played: result.played, gaps: result.gapMilliseconds, maximumGap: 1_500)
        report("7-8-through-kamailio", transport, gaps: result.gapMilliseconds, reconnect: nil)
    }

    func testThroughKamailioTheBindingAndTheDialogFollowTheMove() throws { try throughKamailio(over: "udp") }
    func testThroughKamailioOverTCP() throws { try throughKamailio(over: "tcp") }
    func testThroughKamailioOverTLS() throws { try throughKamailio(over: "tls") }
}

// Liveness: the proxy's SIP port silently drops everything for 8 s mid-call (an nftables rule,
// nothing refused or closed). Both parties' keep-alives (every 2 s, 2 s to answer) go
// unanswered: each reports 53001 within 4 s of the outage, keeps its audio (media does not go
// through the proxy), and reconnects once the proxy answers again.
extension CallNetworkChangeNamespaceTests {
    func signalingOutage(over transport: String) throws {
        try requireKamailio()
        var scenario = try scenario(transport)
        scenario.callSeconds = 18
        let result = try scenario.runSignalingOutage(outage: 8)
        let logs = "mover:\n\(result.moverLog)\nfar:\n\(result.farLog)\nkamailio:\n\(result.kamailioLog.suffix(3_000))"
        for (side, callbacks) in [("mover", result.moverCallbacks), ("far", result.farCallbacks)] {
            XCTAssertEqual(callbacks, ["connected", "reconnecting: 53001", "reconnected", "disconnected"], "\(side):\n\(logs)")
            let noticed = try XCTUnwrap(result.noticedMilliseconds[side], logs)
            XCTAssertLessThanOrEqual(noticed, 4_000 + 300, "\(side) noticed within interval + timeout")
            XCTAssertLessThanOrEqual(try XCTUnwrap(result.recoveredMilliseconds[side], logs), 6_000, "\(side) back soon after the proxy")
        }
        XCTAssertEqual(result.moverExit, 0, logs)
        XCTAssertEqual(result.farExit, 0, logs)
        checkAudio(heard: result.heard, played: result.played, gaps: result.gapMilliseconds, maximumGap: 500)
        print("signaling outage over \(transport): noticed after \(result.noticedMilliseconds) ms, reconnected \(result.recoveredMilliseconds) ms after the proxy was back; gaps \(result.gapMilliseconds)")
    }

    func testASignalingPathThatDiesSilentlyOverUDPIsNoticedAndRecovered() throws { try signalingOutage(over: "udp") }

    /// Over TCP the connection stays open but its packets stop, so only the unanswered CRLF
    /// pings (RFC 5626 §4.4.1) tell.
    func testATCPConnectionWhosePacketsStopIsNoticedByItsPingsAndRecovered() throws { try signalingOutage(over: "tcp") }
    func testATLSConnectionWhosePacketsStopIsNoticedByItsPingsAndRecovered() throws { try signalingOutage(over: "tls") }
}

// IPv6: the mover's network becomes IPv6-only mid-call (its IPv4 goes, its IPv6 renumbers);
// the far party has IPv6 only. After the change the mover has no IPv4 address at all (c1 is
// down), so the far party's tone in the mover's last 3 s, and the mover's in the far party's,
// went over the new IPv6 address: the re-INVITE carried the new Contact and ICE restarted on
// IPv6 candidates.
extension CallNetworkChangeNamespaceTests {
    func testAMoveToAnIPv6OnlyNetworkKeepsTheCallUp() throws {
        let result = try scenario("udp").run(.moveToIPv6Only)
        check(result, reconnections: 1, maximumGap: 1_500)
        XCTAssertEqual(result.moverCallbacks, ["connected", "reconnecting: 53001", "reconnected", "disconnected"], result.moverLog)
        XCTAssertTrue(result.moverLog.contains("media path: host [fd00:1::2]"), "the call started over IPv6:\n\(result.moverLog)")
        report("ipv6-only-move", "udp", gaps: result.gapMilliseconds, reconnect: result.reconnectMilliseconds)
    }
}
