import Foundation
import VoiceTestKit
import XCTest
import VoiceTestAudio

/// Two baresip instances calling each other on loopback, driven and observed over `ctrl_tcp`.
final class SIPPeerHarnessBaresipCallTests: XCTestCase {
    private func start(_ user: String, autoAnswer: Bool = true, _ adjust: (inout BaresipConfiguration) -> Void = { _ in }) throws -> BaresipPeer {
        try requirePeer("baresip")
        var configuration = BaresipConfiguration()
        configuration.user = user
        configuration.autoAnswer = autoAnswer
        adjust(&configuration)
        return try BaresipPeer(configuration: configuration)
    }

    func testDialAcceptHoldResumeDTMFAndHangUp() throws {
        let recording = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "baresip-call")
        defer { if ProcessInfo.processInfo.environment["KEEP"] == nil { try? FileManager.default.removeItem(atPath: recording) } }
        let audioFile = recording + "/speech.wav"
        try BaresipWAVFile.write(TestSignals.speechLike(seconds: 2), to: audioFile)
        for side in ["alice", "bob"] {
            try FileManager.default.createDirectory(atPath: recording + "/" + side, withIntermediateDirectories: true)
        }
        let alice = try start("alice") {
            $0.sipTrace = true
            $0.audioFile = audioFile
            $0.recordingDirectory = recording + "/alice"
        }
        defer { alice.stop() }
        let bob = try start("bob", autoAnswer: false) { $0.recordingDirectory = recording + "/bob" }
        defer { bob.stop() }
        func failure(_ what: String) -> String {
            "\(what)\nalice: \(alice.control.receivedEvents)\nbob: \(bob.control.receivedEvents)\nalice log:\n\(alice.process.logTail())\nbob log:\n\(bob.process.logTail())"
        }

        // Dial; bob rings (manual answer) until accepted.
        try alice.control.dial(bob.uri)
        // CALL_INCOMING is sometimes not delivered by baresip 1.0.0 (about one run in five):
        // the ringing call is found through listcalls instead.
        try bob.control.waitForCallState("INCOMING")
        let incoming = try XCTUnwrap(bob.control.calls().first)
        XCTAssertEqual(incoming.peerURI, alice.uri)
        try alice.control.waitForEvent(.callRinging)
        try bob.control.accept()
        let established = try alice.control.waitForEvent(.callEstablished)
        XCTAssertEqual(try bob.control.waitForEvent(.callEstablished).callID, established.callID)
        XCTAssertEqual(established.direction, "outgoing")
        XCTAssertEqual(try alice.control.currentCallState(), "ESTABLISHED")
        XCTAssertEqual(try alice.control.audioDirection(), "sendrecv")

        // baresip 1.0.0 stops recording received audio at the first re-INVITE: let some arrive first.
        XCTAssertTrue(bob.waitForReceivedAudio(.milliseconds(300)), failure("bob records no received audio"))

        // Hold: a re-INVITE offer reaches bob, directions become sendonly / recvonly.
        try alice.control.hold()
        let holdOffer = try bob.control.waitForEvent(.callRemoteSDP, timeout: .seconds(5)) {
            $0.param == "offer" && $0.receivedAt > established.receivedAt
        }
        let holdAnswer = try alice.control.waitForEvent(.callRemoteSDP, timeout: .seconds(5)) {
            $0.param == "answer" && $0.receivedAt > established.receivedAt
        }
        XCTAssertEqual(try alice.control.audioDirection(), "sendonly", failure("hold"))
        XCTAssertEqual(try bob.control.audioDirection(), "recvonly", failure("hold"))
        XCTAssertTrue(alice.log.contains("a=sendonly"), failure("no sendonly offer in the SIP trace"))
        XCTAssertTrue(bob.log.contains("got re-INVITE"), failure("bob logs no re-INVITE"))

        // Resume: another offer, back to sendrecv.
        try alice.control.resume()
        try bob.control.waitForEvent(.callRemoteSDP, timeout: .seconds(5)) {
            $0.param == "offer" && $0.receivedAt > holdOffer.receivedAt
        }
        try alice.control.waitForEvent(.callRemoteSDP, timeout: .seconds(5)) {
            $0.param == "answer" && $0.receivedAt > holdAnswer.receivedAt
        }
        XCTAssertEqual(try alice.control.audioDirection(), "sendrecv", failure("resume"))
        XCTAssertEqual(try bob.control.audioDirection(), "sendrecv", failure("resume"))

        // RFC 4733 digits: bob reports each as CALL_DTMF_START with the key, then CALL_DTMF_END.
        try alice.control.sendDTMF("123")
        var keys: [String] = []
        for _ in 0..<3 { keys.append(try bob.control.waitForEvent(.callDTMFStart, timeout: .seconds(5)).param ?? "?") }
        XCTAssertEqual(keys, ["1", "2", "3"], failure("DTMF"))
        try bob.control.waitForEvent(.callDTMFEnd, timeout: .seconds(2))

        // Hang up from alice: both close, bob's reason names the peer.
        try alice.control.hangUp()
        XCTAssertEqual(try bob.control.waitForEvent(.callClosed).param, "Connection reset by peer")
        XCTAssertEqual(try alice.control.waitForEvent(.callClosed).param, "Connection reset by user")
        XCTAssertEqual(try bob.control.calls(), [])

        // sndfile wrote both directions on both sides; alice sent the file, bob received audio.
        let sent = try XCTUnwrap(alice.recordings.sent.last, failure("alice recorded nothing"))
        let received = try XCTUnwrap(bob.recordings.received.last, failure("bob recorded nothing"))
        XCTAssertEqual(alice.recordings.received.count, 1)
        XCTAssertEqual(bob.recordings.sent.count, 1)
        let sentAudio = try BaresipWAVFile.read(sent)
        XCTAssertEqual(sentAudio.sampleRate, 48_000)
        XCTAssertGreaterThan(sentAudio.samples.count, 48_000, failure("alice sent under half a second"))
        XCTAssertTrue(alice.log.contains("aufile ---> sndfile"), failure("aufile is not alice's source"))
        let receivedAudio = try BaresipWAVFile.read(received).channel(0)
        XCTAssertGreaterThan(receivedAudio.map { abs(Int($0)) }.max() ?? 0, 1000, failure("bob received silence: \(receivedAudio.count) samples in \(received)"))
    }

    func testInCallCommandsNeedACallAndAutoAnswerPicksUp() throws {
        let carol = try start("carol")
        defer { carol.stop() }
        XCTAssertEqual(try carol.control.calls(), [])
        XCTAssertNil(try carol.control.currentCallState())
        XCTAssertNil(try carol.control.audioDirection())
        XCTAssertThrowsError(try carol.control.hold()) { error in
            XCTAssertEqual((error as? BaresipControlError)?.kind, .commandFailed)
            XCTAssertTrue("\(error)".contains("command not found"), "\(error)")
        }
        XCTAssertThrowsError(try carol.control.sendDTMF("1")) { XCTAssertEqual(($0 as? BaresipControlError)?.kind, .commandFailed) }
        try carol.control.accept()
        try carol.control.hangUp()

        // Auto-answer: dave answers without accept; a hang-up from the callee closes the caller.
        let dave = try start("dave")
        defer { dave.stop() }
        try carol.control.dial(dave.uri)
        try dave.control.waitForEvent(.callEstablished)
        try carol.control.waitForEvent(.callEstablished)
        XCTAssertTrue(dave.control.events(ofType: .callIncoming).isEmpty, "\(dave.control.receivedEvents)")
        try dave.control.setAnswerMode(.manual)
        try dave.control.hangUp()
        XCTAssertEqual(try carol.control.waitForEvent(.callClosed).param, "Connection reset by peer")
    }
}
