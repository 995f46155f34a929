import Foundation
import VoiceMedia
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceTestAudio
import VoiceCore
import VoiceMediaTypes
import VoiceSupport

/// Our user agent and media engine against baresip 1.0.0 (Debian's baresip-core): calls both
/// ways with Opus over SRTP (SDES), audio checked from both sides' recordings, RFC 4733 DTMF
/// both ways, hold/resume from either side, BYE from either side.
final class SIPInteropBaresipTests: XCTestCase {
    private var cleanup: [() -> Void] = []

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
    }

    /// What our side of a call runs: the agent, the call's media and the device it plays into.
    private struct OurSide {
        let agent: SIPTestAgent
        let media: SIPCallMedia
        let device: BufferAudioDevice
        let digits: Locked<[UInt8]>
    }

    private let ourSignal = TestSignals.multiTone([(440, 6_000), (1_250, 4_000)], seconds: 4)
    private let theirSignal = TestSignals.speechLike(seconds: 4)

    private func startBaresip(autoAnswer: Bool = true) throws -> (BaresipPeer, String) {
        try requirePeer("baresip")
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "baresip-interop")
        let audioFile = directory + "/speech.wav"
        // baresip ends the call when its audio file runs out (menu: "audio error, end of file"), so
        // the file repeats the signal for longer than any test call lasts.
        try BaresipWAVFile.write(Array([[Int16]](repeating: theirSignal, count: 10).joined()), to: audioFile)
        var configuration = BaresipConfiguration()
        configuration.user = "carol"
        configuration.autoAnswer = autoAnswer
        configuration.audioFile = audioFile
        configuration.recordingDirectory = directory
        let baresip = try BaresipPeer(configuration: configuration)
        cleanup.append {
            baresip.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        return (baresip, directory)
    }

    private func ourAgent() throws -> SIPTestAgent {
        let agent = try SIPTestAgent(user: "alice")
        cleanup.append { agent.shutdown() }
        return agent
    }

    private func startMedia(_ agent: SIPTestAgent, _ handle: SIPCallHandle, _ negotiated: SDPNegotiatedMedia) throws -> OurSide {
        let device = BufferAudioDevice(captureSamples: ourSignal)
        let digits = Locked<[UInt8]>([])
        let reserved = try XCTUnwrap(agent.agent.reservedMedia(of: handle).wait())
        let media = SIPCallMedia(localHost: "127.0.0.1", localPort: reserved.port, reserved: reserved, audioDevice: device) { event in
            if case .telephoneEvent(let code, _) = event { digits.withLock { $0.append(code) } }
        }
        cleanup.append { media.stop() }
        try media.apply(negotiated)
        return OurSide(agent: agent, media: media, device: device, digits: digits)
    }

    /// Checks both directions of audio: what we played against baresip's file, and what baresip
    /// received (its sndfile recording) against what we sent.
    private func assertAudioBothWays(_ ours: OurSide, _ baresip: BaresipPeer, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertTrue(baresip.waitForReceivedAudio(.seconds(2), timeout: .seconds(6)), "baresip received audio", file: file, line: line)
        // baresip loops its file from the moment its media starts, which may be before our
        // recording starts: align with the loop, not with its first period. Window by window,
        // since a loaded machine shifts a real-time call's timeline now and then.
        let atUs = SpectralSimilarity(playedInALoop: theirSignal, in: ours.device.recordedSamples)
        XCTAssertGreaterThan(atUs.score, 0.75, "baresip → us: \(atUs)", file: file, line: line)
        let recording = try XCTUnwrap(baresip.recordings.received.last, "baresip's received-audio recording", file: file, line: line)
        let received = try BaresipWAVFile.read(recording).channel(0)
        let atThem = SpectralSimilarity(played: ourSignal, in: received)
        XCTAssertGreaterThan(atThem.score, 0.75, "us → baresip: \(atThem)", file: file, line: line)
    }

    private func direction(_ agent: SIPTestAgent, _ handle: SIPCallHandle, _ wanted: SDPDirection) -> SDPNegotiatedMedia? {
        agent.waitForCallEvent(handle) { if case .mediaUpdated(let m) = $0, m.direction == wanted { return m } else { return nil } }
    }

    func testWeCallBaresipWithAudioDTMFHoldResumeAndOurBye() throws {
        let (baresip, _) = try startBaresip()
        let alice = try ourAgent()
        let outgoing = try alice.agent.call(try SIPURI(parsing: baresip.uri)).wait()
        let negotiated = try XCTUnwrap(alice.waitForEstablished(outgoing), "baresip answered; log:\n\(baresip.process.logTail())")
        XCTAssertEqual(negotiated.codec.name, "opus")
        XCTAssertNotNil(negotiated.localKey, "SRTP negotiated")
        let ours = try startMedia(alice, outgoing, negotiated)
        try baresip.control.waitForEvent(.callEstablished)
        let encryption = try baresip.control.waitForEvent(.callMediaEncryption)
        XCTAssertTrue(encryption.param?.contains("AES") ?? false, "baresip reports SRTP: \(encryption)")
        Thread.sleep(forTimeInterval: 2.5)
        try assertAudioBothWays(ours, baresip)

        // RFC 4733 both ways.
        try ours.media.sendDigits("159")
        for key in ["1", "5", "9"] {
            XCTAssertEqual(
                try baresip.control.waitForEvent(.callDTMFStart, timeout: .seconds(3)).param, key,
                "\(ours.media.stream?.stats as Any)\n\(baresip.process.logTail())")
        }
        try baresip.control.sendDTMF("47")
        XCTAssertTrue(alice.wait(timeout: 5) { _ in ours.digits.withLock { $0 == [4, 7] } ? true : nil } ?? false,
            "digits from baresip: \(ours.digits.withLock { $0 })")

        // We hold and resume.
        alice.agent.hold(outgoing)
        try ours.media.apply(try XCTUnwrap(direction(alice, outgoing, .sendonly), "our hold answered"))
        XCTAssertEqual(try baresip.control.audioDirection(), "recvonly")
        alice.agent.resume(outgoing)
        try ours.media.apply(try XCTUnwrap(direction(alice, outgoing, .sendrecv), "our resume answered"))
        XCTAssertEqual(try baresip.control.audioDirection(), "sendrecv")
        // baresip holds and resumes.
        try baresip.control.hold()
        XCTAssertNotNil(direction(alice, outgoing, .recvonly), "baresip's hold re-INVITE reached us")
        try baresip.control.resume()
        XCTAssertNotNil(direction(alice, outgoing, .sendrecv), "baresip's resume re-INVITE reached us")

        alice.agent.hangUp(outgoing)
        XCTAssertEqual(alice.waitForTermination(outgoing), .localHangUp)
        try baresip.control.waitForEvent(.callClosed)
    }

    func testBaresipCallsUsWithAudioAndItsBye() throws {
        let (baresip, _) = try startBaresip()
        let alice = try ourAgent()
        try baresip.control.dial(alice.uri.description)
        let (incoming, invite) = try XCTUnwrap(alice.waitForIncomingCall(), "baresip's INVITE; log:\n\(baresip.process.logTail())")
        XCTAssertTrue(String(decoding: invite.body, as: UTF8.self).contains("RTP/SAVP"), "baresip offers SRTP")
        alice.agent.ring(incoming)
        alice.agent.accept(incoming)
        let negotiated = try XCTUnwrap(alice.waitForEstablished(incoming), "baresip ACKed our 200")
        XCTAssertEqual(negotiated.codec.name, "opus")
        let ours = try startMedia(alice, incoming, negotiated)
        try baresip.control.waitForEvent(.callEstablished)
        Thread.sleep(forTimeInterval: 2.5)
        try assertAudioBothWays(ours, baresip)
        try baresip.control.hangUp()
        XCTAssertEqual(alice.waitForTermination(incoming), .remoteHangUp)
    }
}
