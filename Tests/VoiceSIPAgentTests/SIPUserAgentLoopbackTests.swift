import VoiceEmbedded
import Foundation
import NIOCore
import VoiceMedia
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceTestAudio
import VoiceCore
import VoiceMediaTypes

/// Two of our user agents calling each other over real sockets on loopback.
final class SIPUserAgentLoopbackTests: XCTestCase {
    private var agents: [SIPTestAgent] = []

    override func tearDown() {
        for agent in agents { agent.shutdown() }
        agents = []
    }

    private func pair(_ transport: SIPTransportProtocol, host: String = "127.0.0.1") throws -> (SIPTestAgent, SIPTestAgent) {
        let alice = try SIPTestAgent(user: "alice", transport: transport, host: host)
        let bob = try SIPTestAgent(user: "bob", transport: transport, host: host)
        agents += [alice, bob]
        return (alice, bob)
    }

    /// Alice calls Bob, Bob rings and answers; returns both handles once both sides are established.
    private func connect(
        _ alice: SIPTestAgent, _ bob: SIPTestAgent, file: StaticString = #filePath, line: UInt = #line
    ) throws -> (SIPCallHandle, SIPCallHandle, SDPNegotiatedMedia, SDPNegotiatedMedia) {
        let outgoing = try alice.agent.call(bob.uri).wait()
        let (incoming, invite) = try XCTUnwrap(bob.waitForIncomingCall(), "no INVITE reached bob", file: file, line: line)
        XCTAssertEqual(try invite.headers.from().uri.user, "alice", file: file, line: line)
        bob.agent.ring(incoming)
        XCTAssertNotNil(alice.waitForCallEvent(outgoing) { $0 == .ringing ? true : nil }, "180 reached alice", file: file, line: line)
        bob.agent.accept(incoming)
        let aliceMedia = try XCTUnwrap(alice.waitForEstablished(outgoing), "alice established", file: file, line: line)
        let bobMedia = try XCTUnwrap(bob.waitForEstablished(incoming), "bob established (ACK arrived)", file: file, line: line)
        return (outgoing, incoming, aliceMedia, bobMedia)
    }

    func testCallOverUDPNegotiatesOpusAndSRTPThenCallerHangsUp() throws {
        let (alice, bob) = try pair(.udp)
        let (outgoing, incoming, aliceMedia, bobMedia) = try connect(alice, bob)
        XCTAssertEqual(aliceMedia.codec.name, "opus")
        XCTAssertNotNil(aliceMedia.localKey)
        XCTAssertNotNil(aliceMedia.remoteKey)
        XCTAssertEqual(aliceMedia.localKey, bobMedia.remoteKey, "SDES keys crossed")
        XCTAssertEqual(aliceMedia.remoteRTP.port, try bob.agent.mediaPort(of: incoming).wait())
        alice.agent.hangUp(outgoing)
        XCTAssertEqual(bob.waitForTermination(incoming), .remoteHangUp)
        XCTAssertEqual(alice.waitForTermination(outgoing), .localHangUp)
    }

    func testCallOverTCPAndCalleeHangsUp() throws {
        let (alice, bob) = try pair(.tcp)
        let (outgoing, incoming, _, _) = try connect(alice, bob)
        bob.agent.hangUp(incoming)
        XCTAssertEqual(alice.waitForTermination(outgoing), .remoteHangUp)
        XCTAssertEqual(bob.waitForTermination(incoming), .localHangUp)
    }

    func testCallOverTLSOnIPv6() throws {
        let (alice, bob) = try pair(.tls, host: "::1")
        let (outgoing, incoming, media, _) = try connect(alice, bob)
        XCTAssertEqual(media.remoteRTP.host, "::1")
        alice.agent.hangUp(outgoing)
        XCTAssertEqual(bob.waitForTermination(incoming), .remoteHangUp)
    }

    func testCancelWhileRingingGives487() throws {
        let (alice, bob) = try pair(.udp)
        let outgoing = try alice.agent.call(bob.uri).wait()
        let (incoming, _) = try XCTUnwrap(bob.waitForIncomingCall())
        bob.agent.ring(incoming)
        XCTAssertNotNil(alice.waitForCallEvent(outgoing) { $0 == .ringing ? true : nil })
        alice.agent.hangUp(outgoing)
        XCTAssertEqual(bob.waitForTermination(incoming), .cancelledByRemote)
        XCTAssertEqual(alice.waitForTermination(outgoing), .cancelledByLocal)
    }

    /// The callee reserves an incoming call's media port off its event loop; a CANCEL arriving
    /// meanwhile gets its 200, the INVITE its 487, and the app never hears of the call.
    func testCancelWhileTheCalleeReservesAMediaPortGives487AndNoCall() throws {
        let (alice, bob) = try pair(.udp)
        bob.agent.blockingQueue.suspend()
        var resumed = false
        defer { if !resumed { bob.agent.blockingQueue.resume() } }
        let outgoing = try alice.agent.call(bob.uri).wait()
        XCTAssertTrue(PollingWait.until(timeout: 5) { (try? bob.agent.eventLoop.submit { bob.agent.invitesAwaitingMediaPort.count }.wait()) == 1 })
        alice.agent.hangUp(outgoing)
        XCTAssertTrue(PollingWait.until(timeout: 5) { (try? bob.agent.eventLoop.submit { bob.agent.invitesAwaitingMediaPort.values.first }.wait()) == true }, "the CANCEL reached bob")
        bob.agent.blockingQueue.resume()
        resumed = true
        XCTAssertEqual(alice.waitForTermination(outgoing), .cancelledByLocal)
        XCTAssertNil(bob.waitForIncomingCall(timeout: 0.5), "a cancelled INVITE is never offered to the app")
        XCTAssertEqual(try bob.agent.eventLoop.submit { bob.agent.ringingCallsBySource.isEmpty && bob.agent.invitesAwaitingMediaPort.isEmpty }.wait(), true)
    }

    func testRejectReachesTheCallerWithItsStatus() throws {
        let (alice, bob) = try pair(.udp)
        let outgoing = try alice.agent.call(bob.uri).wait()
        let (incoming, _) = try XCTUnwrap(bob.waitForIncomingCall())
        bob.agent.reject(incoming, statusCode: 486)
        let reason = alice.waitForTermination(outgoing)
        XCTAssertTrue(reason == .rejected(statusCode: 486) || reason == .declined(statusCode: 486), "\(String(describing: reason))")
    }

    func testHoldAndResumeBothWays() throws {
        let (alice, bob) = try pair(.udp)
        let (outgoing, incoming, _, _) = try connect(alice, bob)
        alice.agent.hold(outgoing)
        let bobHeld = bob.waitForCallEvent(incoming) { if case .mediaUpdated(let m) = $0 { return m } else { return nil } }
        XCTAssertEqual(bobHeld?.direction, .recvonly, "a=sendonly offered, we answer recvonly")
        let aliceHeld = alice.waitForCallEvent(outgoing) { if case .mediaUpdated(let m) = $0 { return m } else { return nil } }
        XCTAssertEqual(aliceHeld?.direction, .sendonly)
        alice.agent.resume(outgoing)
        XCTAssertNotNil(bob.waitForCallEvent(incoming) { if case .mediaUpdated(let m) = $0, m.direction == .sendrecv { return m } else { return nil } })
        // And the callee can hold too.
        bob.agent.hold(incoming)
        XCTAssertNotNil(alice.waitForCallEvent(outgoing) { if case .mediaUpdated(let m) = $0, m.direction == .recvonly { return m } else { return nil } })
        alice.agent.hangUp(outgoing)
        XCTAssertEqual(bob.waitForTermination(incoming), .remoteHangUp)
    }

    func testInfoCarriesJSONAndDTMFRelay() throws {
        let (alice, bob) = try pair(.udp)
        let (outgoing, incoming, _, _) = try connect(alice, bob)
        let json = Array(#"{"customer":"42","note":"hello"}"#.utf8)
        XCTAssertEqual(try alice.agent.sendInfo(outgoing, contentType: "application/json", body: json).wait(), 200)
        let received = bob.waitForCallEvent(incoming) { event -> [UInt8]? in
            if case .infoReceived(let type, let body, _) = event, type == "application/json" { return body } else { return nil }
        }
        XCTAssertEqual(received, json)
        XCTAssertNotNil(alice.waitForCallEvent(outgoing) { if case .infoResult(_, 200) = $0 { return true } else { return nil } })
        let relay = Array("Signal=7\r\nDuration=160\r\n".utf8)
        XCTAssertEqual(try bob.agent.sendInfo(incoming, contentType: "application/dtmf-relay", body: relay).wait(), 200)
        let digit = alice.waitForCallEvent(outgoing) { if case .dtmfReceived(let d, _) = $0 { return d } else { return nil } }
        XCTAssertEqual(digit, "7")
        // Too large is refused before sending.
        XCTAssertThrowsError(try alice.agent.sendInfo(outgoing, contentType: "application/json", body: [UInt8](repeating: 0x20, count: 10_241)).wait())
        alice.agent.hangUp(outgoing)
    }

    func testAudioFlowsBothWaysThroughTheMediaEngine() throws {
        let (alice, bob) = try pair(.udp)
        let tonesA = TestSignals.multiTone([(440, 5_000), (1_250, 3_000)], seconds: 3)
        let tonesB = TestSignals.multiTone([(660, 5_000), (2_100, 3_000)], seconds: 3)
        let deviceA = BufferAudioDevice(captureSamples: tonesA)
        let deviceB = BufferAudioDevice(captureSamples: tonesB)
        let (outgoing, incoming, aliceMedia, bobMedia) = try connect(alice, bob)
        let reservedA = try XCTUnwrap(alice.agent.reservedMedia(of: outgoing).wait())
        let reservedB = try XCTUnwrap(bob.agent.reservedMedia(of: incoming).wait())
        let mediaA = SIPCallMedia(localHost: "127.0.0.1", localPort: reservedA.port, reserved: reservedA, audioDevice: deviceA)
        let mediaB = SIPCallMedia(localHost: "127.0.0.1", localPort: reservedB.port, reserved: reservedB, audioDevice: deviceB)
        defer {
            mediaA.stop()
            mediaB.stop()
        }
        try mediaA.apply(aliceMedia)
        try mediaB.apply(bobMedia)
        Thread.sleep(forTimeInterval: 2.5)
        alice.agent.hangUp(outgoing)
        mediaA.stop()
        mediaB.stop()
        // Window by window: a loaded machine shifts a real-time call's timeline now and then.
        let atB = SpectralSimilarity(played: tonesA, in: deviceB.recordedSamples)
        let atA = SpectralSimilarity(played: tonesB, in: deviceA.recordedSamples)
        XCTAssertGreaterThan(atB.score, 0.8, "alice → bob: \(atB)")
        XCTAssertGreaterThan(atA.score, 0.8, "bob → alice: \(atA)")
    }
}
