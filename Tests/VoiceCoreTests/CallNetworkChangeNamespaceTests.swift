import Foundation
import VoiceSignals
import VoiceSupport
import VoiceTestKit
import XCTest

/// Network changes for real (``NetworkChangeCall``): the caller runs `voicecall call --listen
/// auto` in a network namespace and the test changes its addresses with `ip` mid-call. Checked
/// from the caller's callbacks and both recordings.
final class CallNetworkChangeNamespaceTests: XCTestCase {
    private var directory: String?

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    func scenario() throws -> NetworkChangeCall {
        switch NetworkNamespace.requirement() {
        case .available: break
        case .skip(let why): throw XCTSkip(why)
        case .fail(let why):
            XCTFail(why)
            throw XCTSkip(why)
        }
        let voicecall = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("voicecall").path
        guard FileManager.default.isExecutableFile(atPath: voicecall) else {
            let message = "voicecall is not built next to the tests (\(voicecall)); run `swift build` first"
            if ProcessInfo.processInfo.environment["CI"]?.lowercased() == "true" { XCTFail(message) }
            throw XCTSkip(message)
        }
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "netchange")
        self.directory = directory
        return NetworkChangeCall(voicecall: voicecall, directory: directory)
    }

    /// Case 1 of the issue: DHCP renumbering on the call's link.
    func testRenumberingMovesTheCallAndTheAudioGoesOn() throws {
        let result = try scenario().run(.renumber)
        check(result, reconnections: 1, maximumGap: 1_500)
        XCTAssertEqual(result.moverCallbacks, ["connected", "reconnecting: 53001", "reconnected", "disconnected"], result.moverLog)
        let reconnect = try XCTUnwrap(result.reconnectMilliseconds, result.moverLog)
        XCTAssertLessThan(reconnect, 2_000, "reconnected within 2 s of the change")
        print("netchange renumber: reconnected \(reconnect) ms after the change; gaps \(result.gapMilliseconds)")
    }
}

extension CallNetworkChangeNamespaceTests {
    /// Checks a call that lived through `change`: it ended normally, reconnected after each
    /// `isReconnecting`, kept its audio at both ends within `maximumGap`, and the callee, whose
    /// address never changed, saw no callback.
    func check(_ result: NetworkChangeCall.Result, reconnections: Int, maximumGap: Int) {
        let logs = "caller:\n\(result.moverLog)\ncallee:\n\(result.farLog)"
        XCTAssertEqual(result.moverExit, 0, logs)
        XCTAssertEqual(result.farExit, 0, logs)
        let callbacks = result.moverCallbacks
        XCTAssertEqual(callbacks.first, "connected", logs)
        XCTAssertEqual(callbacks.last, "disconnected", logs)
        XCTAssertEqual(callbacks.filter { $0 == "reconnecting: 53001" }.count, reconnections, "signaling reconnections:\n\(logs)")
        XCTAssertEqual(
            callbacks.filter { $0.hasPrefix("reconnecting") }.count, callbacks.filter { $0 == "reconnected" }.count,
            "each reconnecting ends reconnected:\n\(logs)")
        XCTAssertEqual(callbacks.dropLast().last, "reconnected", logs)
        XCTAssertFalse(result.farLog.contains("call: reconnecting"), "the callee's address did not change:\n\(logs)")
        checkAudio(heard: result.heard, played: result.played, gaps: result.gapMilliseconds, maximumGap: maximumGap)
    }

    /// Case 2: the only link down for 3 s, then back with the same address: the call waits,
    /// then reconnects with the same SID; the gap is at most the outage plus 1.5 s.
    func testALinkDownForThreeSecondsAndBackReconnectsTheCall() throws {
        let result = try scenario().run(.linkFlap)
        print("netchange link flap: reconnected \(result.reconnectMilliseconds ?? -1) ms after the link went down; gaps \(result.gapMilliseconds)")
        check(result, reconnections: 1, maximumGap: 3_000 + 1_500)
    }

    /// Case 4: an Ethernet-class link appears while the call is on a VPN-class one: the call
    /// moves to it; when it goes, the call moves back.
    func testAMorePreferredLinkTakesTheCallAndLosingItMovesTheCallBack() throws {
        let result = try scenario().run(.preferredAppears)
        print("netchange preferred link: reconnected \(result.reconnectMilliseconds ?? -1) ms after it appeared; gaps \(result.gapMilliseconds)")
        check(result, reconnections: 2, maximumGap: 1_500)
    }
}

extension CallNetworkChangeNamespaceTests {
    /// Case 3: the only link goes down for longer than the reconnection timeout (5 s here): the
    /// caller ends with 53001 (its signaling could not be restored), the callee, whose media
    /// stopped, with 53405; both exit with an error.
    func testALinkDownPastTheReconnectionTimeoutEndsTheCallOnBothSides() throws {
        let result = try scenario().run(.linkLost)
        let logs = "caller:\n\(result.moverLog)\ncallee:\n\(result.farLog)"
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
    }
}

extension CallNetworkChangeNamespaceTests {
    /// Case 5: our client is called and renumbers while its phone rings: the call still
    /// connects, with no reconnecting callback (it was never connected on the old address),
    /// answered from the new address (Contact and `c=`), and the audio flows both ways.
    func testARenumberingWhileRingingStillConnectsAndUsesTheNewAddress() throws {
        let result = try scenario().run(.renumberWhileRinging)
        let logs = "caller:\n\(result.moverLog)\ncallee:\n\(result.farLog)"
        XCTAssertEqual(result.moverExit, 0, logs)
        XCTAssertEqual(result.farExit, 0, logs)
        XCTAssertEqual(result.moverCallbacks, ["connected", "disconnected"], logs)
        XCTAssertTrue(result.farLog.contains("call: connected"), logs)
        XCTAssertFalse(result.farLog.contains("call: reconnecting"), logs)
        checkAudio(heard: result.heard, played: result.played, gaps: result.gapMilliseconds, maximumGap: 1_500)
    }
}

extension CallNetworkChangeNamespaceTests {
    /// Case 6, from the side that stays: its peer renumbers and re-INVITEs from the new address,
    /// and it follows with no callback. Then an attacker elsewhere (10.9.0.66) sends 3 s of
    /// forged SRTP at its media ports: every forgery is refused, and the stream is not
    /// captured: the audio goes on both ways to the end.
    func testThePeerMovesOurSideFollowsAndForgedMediaCannotCaptureTheStream() throws {
        var scenario = try scenario()
        scenario.spoofsFarMedia = true
        let result = try scenario.run(.renumber)
        check(result, reconnections: 1, maximumGap: 1_500)
        XCTAssertGreaterThanOrEqual(result.spoofedPackets, 300, "the forgeries went out")
        XCTAssertGreaterThanOrEqual(result.farRefused, result.spoofedPackets, "every forgery was refused:\n\(result.farLog)")
        print("netchange peer moves under spoofing: \(result.spoofedPackets) forged packets, \(result.farRefused) refused; gaps \(result.gapMilliseconds)")
    }
}

extension CallNetworkChangeNamespaceTests {
    /// Liveness over UDP: the proxy's SIP port silently drops everything for 8 s mid-call (an
    /// nftables rule, nothing refused or closed). Both parties' keep-alives (every 2 s, 2 s to
    /// answer) go unanswered: each reports 53001 within 4 s of the outage, keeps its audio
    /// (media does not go through the proxy), and reconnects once the proxy answers again.
    func testASignalingPathThatDiesSilentlyOverUDPIsNoticedAndRecovered() throws {
        try checkSignalingOutage(transport: "udp")
    }

    /// The same over TCP: the connection stays open but its packets stop, so only the
    /// unanswered CRLF pings (RFC 5626 §4.4.1) tell.
    func testATCPConnectionWhosePacketsStopIsNoticedByItsPingsAndRecovered() throws {
        try checkSignalingOutage(transport: "tcp")
    }

    private func checkSignalingOutage(transport: String) throws {
        switch SIPPeerRequirement.check("kamailio") {
        case .available: break
        case .skip(let why): throw XCTSkip(why)
        case .fail(let why):
            XCTFail(why)
            return
        }
        var scenario = try scenario()
        scenario.transport = transport
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
}

extension CallNetworkChangeNamespaceTests {
    /// Cases 7 and 8 through Kamailio: a registered client with no call is renumbered and a call
    /// placed by name 2 s later reaches it at the new address (it re-registered); renumbered
    /// again during that call, it moves the call through the proxy, and the far party's BYE
    /// reaches the new address along the dialog's route.
    func testThroughKamailioTheBindingAndTheDialogFollowTheMove() throws {
        switch SIPPeerRequirement.check("kamailio") {
        case .available: break
        case .skip(let why): throw XCTSkip(why)
        case .fail(let why):
            XCTFail(why)
            return
        }
        let result = try scenario().runThroughProxy()
        let logs = "mover:\n\(result.moverLog)\nfar:\n\(result.farLog)\nkamailio:\n\(result.kamailioLog.suffix(3_000))"
        XCTAssertTrue(result.reachedAfterRenumbering, "the call by name reached the new address:\n\(logs)")
        XCTAssertEqual(result.moverCallbacks, ["connected", "reconnecting: 53001", "reconnected", "disconnected"], logs)
        XCTAssertEqual(result.moverExit, 0, "the far party's BYE ended the call cleanly:\n\(logs)")
        XCTAssertEqual(result.farExit, 0, logs)
        XCTAssertFalse(result.farLog.contains("call: reconnecting"), logs)
        checkAudio(heard: result.heard, played: result.played, gaps: result.gapMilliseconds, maximumGap: 1_500)
    }
}

extension CallNetworkChangeNamespaceTests {
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
            let alignment = WindowedAlignment(playedInALoop: played[side] ?? [], in: Array(samples.suffix(48_000 * 3)))
            XCTAssertGreaterThan(alignment.correlation, 0.7, "\(side) at the end: \(alignment)", file: file, line: line)
        }
    }
}

/// The same network changes with TCP signaling: the connection bound to the old address is
/// closed and the re-INVITE opens a new one from the new address.
extension CallNetworkChangeNamespaceTests {
    private func tcpScenario() throws -> NetworkChangeCall {
        var scenario = try scenario()
        scenario.transport = "tcp"
        return scenario
    }

    func testRenumberingOverTCP() throws {
        let result = try tcpScenario().run(.renumber)
        check(result, reconnections: 1, maximumGap: 1_500)
        print("netchange renumber over TCP: reconnected \(result.reconnectMilliseconds ?? -1) ms after the change; gaps \(result.gapMilliseconds)")
    }

    func testALinkDownForThreeSecondsAndBackOverTCP() throws {
        let result = try tcpScenario().run(.linkFlap)
        check(result, reconnections: 1, maximumGap: 3_000 + 1_500)
    }

    func testThroughKamailioOverTCP() throws {
        switch SIPPeerRequirement.check("kamailio") {
        case .available: break
        case .skip(let why): throw XCTSkip(why)
        case .fail(let why):
            XCTFail(why)
            return
        }
        let result = try tcpScenario().runThroughProxy()
        let logs = "mover:\n\(result.moverLog)\nfar:\n\(result.farLog)"
        XCTAssertTrue(result.reachedAfterRenumbering, logs)
        XCTAssertEqual(result.moverCallbacks, ["connected", "reconnecting: 53001", "reconnected", "disconnected"], logs)
        XCTAssertEqual(result.moverExit, 0, logs)
        checkAudio(heard: result.heard, played: result.played, gaps: result.gapMilliseconds, maximumGap: 1_500)
    }
}
