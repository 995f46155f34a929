import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceRTP
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// The WebRTC-to-SIP gateway deployments run: Kamailio's WebSocket template with Debian's
/// rtpengine anchoring the media. The WebRTC side (a browser softphone, or the SDK with its
/// default media: ICE + DTLS-SRTP) calls a baresip on UDP that speaks only SDES `RTP/SAVP`;
/// rtpengine terminates DTLS on one side and SDES on the other, and audio goes both ways.
final class WebRTCGatewayTests: XCTestCase {
    private var cleanup: [() -> Void] = []
    private let webRTCSignal = TestSignals.multiTone([(440, 6_000), (1_250, 4_000)], seconds: 2)
    private let phoneSignal = TestSignals.speechLike(seconds: 2)

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
    }

    private func startGateway() throws -> (KamailioPeer, BaresipPeer, RTPEnginePeer) {
        switch SIPPeerRequirement.check("rtpengine") {
        case .available: break
        case .skip(let message): throw XCTSkip(message)
        case .fail(let message):
            XCTFail(message)
            throw XCTSkip(message)
        }
        try TestPrerequisites.installed("baresip")
        let rtpengine = try RTPEnginePeer()
        cleanup.append { rtpengine.stop() }
        let kamailio = try CallOverWebSocketTests.startKamailio(rtpengine: rtpengine)
        cleanup.append { kamailio.stop() }
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "gateway-phone")
        let audioFile = directory + "/speech.wav"
        try BaresipWAVFile.write(Array([[Int16]](repeating: phoneSignal, count: 20).joined()), to: audioFile)
        var configuration = BaresipConfiguration()
        configuration.user = "bob"
        configuration.registrar = "sip:127.0.0.1:\(kamailio.configuration.udpPort)"
        configuration.password = "bobpass"
        configuration.audioFile = audioFile
        configuration.recordingDirectory = directory
        configuration.mediaEncryption = "srtp-mand"  // SDES only, RTP/SAVP
        let baresip = try BaresipPeer(configuration: configuration)
        cleanup.append {
            baresip.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        XCTAssertTrue(PollingWait.until(timeout: 10) { baresip.log.contains("200 OK") }, "baresip registered; log:\n\(baresip.process.logTail())")
        return (kamailio, baresip, rtpengine)
    }

    /// What baresip heard is the WebRTC side's signal.
    private func assertPhoneHeard(_ signal: [Int16], _ baresip: BaresipPeer, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertTrue(baresip.waitForReceivedAudio(.seconds(2), timeout: .seconds(10)), "baresip received audio", file: file, line: line)
        let recording = try XCTUnwrap(baresip.recordings.received.last, "baresip's recording", file: file, line: line)
        let atPhone = SpectralSimilarity(playedInALoop: signal, in: try BaresipWAVFile.read(recording).channel(0))
        XCTAssertGreaterThan(atPhone.score, 0.75, "WebRTC → rtpengine → SDES phone: \(atPhone)", file: file, line: line)
    }

    func testSDKWithDTLSReachesAnSDESPhoneThroughRTPEngine() throws {
        let (kamailio, baresip, rtpengine) = try startGateway()
        let alice = try CallOverWebSocketTests.webSocketClient(
            "alice", url: try XCTUnwrap(kamailio.secureWebSocketURL), kamailio: kamailio, signal: webRTCSignal)
        cleanup.append { alice.client.shutdown() }
        let registered = Locked<VoiceError?>(VoiceError(.registrationError))
        alice.listen(result: registered)
        XCTAssertNil(registered.withLock { $0 }, "alice registered; log:\n\(kamailio.process.logTail())")
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: "bob", delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 2, timeout: 15), [.ringing, .connected], "kamailio:\n\(kamailio.process.logTail())\nrtpengine:\n\(rtpengine.process.logTail())")
        // Our side of the call is ICE + DTLS-SRTP, with rtpengine.
        var stats: AudioStreamStats?
        XCTAssertTrue(PollingWait.until(timeout: 10) {
            let box = Locked<AudioStreamStats?>(nil)
            let read = DispatchSemaphore(value: 0)
            call.streamStats { s in
                box.withLock { $0 = s }
                read.signal()
            }
            _ = read.wait(timeout: .now() + 1)
            stats = box.withLock { $0 }
            return stats?.dtlsState == .connected
        }, "\(stats as Any)\nrtpengine:\n\(rtpengine.process.logTail())")
        XCTAssertNotNil(stats?.dtlsSRTPSuite)
        print("gateway: the SDK's stream: SRTP \(stats?.dtlsSRTPSuite?.sdesName ?? "-"), pair \(stats?.selectedCandidatePair?.description ?? "-")")
        try baresip.control.waitForEvent(.callEstablished)
        try assertPhoneHeard(webRTCSignal, baresip)
        XCTAssertTrue(PollingWait.until(timeout: 10) { alice.device.recordedSamples.count >= 96_000 })
        let atUs = SpectralSimilarity(playedInALoop: phoneSignal, in: Array(alice.device.recordedSamples.suffix(72_000)))
        XCTAssertGreaterThan(atUs.score, 0.75, "SDES phone → rtpengine → SDK: \(atUs)")
        // The phone got SDES, not DTLS: rtpengine converted.
        XCTAssertTrue(rtpengine.log.contains("SDES") || rtpengine.log.contains("crypto"), "rtpengine:\n\(rtpengine.process.logTail())")
        call.disconnect()
        XCTAssertEqual(delegate.waitForEnd(), [.ringing, .connected, .disconnected(nil)])
        try baresip.control.waitForEvent(.callClosed)
    }

    func testBrowserReachesAnSDESPhoneThroughRTPEngine() throws {
        try TestPrerequisites.installed("chromium")
        let (kamailio, baresip, rtpengine) = try startGateway()
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "gateway-browser")
        cleanup.append { try? FileManager.default.removeItem(atPath: directory) }
        let play = directory + "/tones.wav"
        try BaresipWAVFile.write(webRTCSignal, to: play)
        let phone = try WebRTCPeer.sipPhone(
            webSocketURL: kamailio.webSocketURL, user: "carol", password: "carolpass", realm: kamailio.configuration.realm,
            calling: "sip:bob@\(kamailio.configuration.realm)", play: play, seconds: 4)
        cleanup.append { phone.stop() }
        let stats = try XCTUnwrap(phone.waitForStats(timeout: 60), "page:\n\(phone.logTail())")
        XCTAssertNil(stats["error"], "\(stats)\npage:\n\(phone.logTail())\nkamailio:\n\(kamailio.process.logTail())\nrtpengine:\n\(rtpengine.process.logTail())")
        XCTAssertEqual(stats["dtlsState"] as? String, "connected", "\(stats)")
        print("gateway: the browser's view: \(stats["selectedPair"] ?? "-"), \(stats["srtpCipher"] ?? "-")")
        try assertPhoneHeard(webRTCSignal, baresip)
        let heard = try BaresipWAVFile.read(phone.recording).channel(0)
        let atBrowser = SpectralSimilarity(playedInALoop: phoneSignal, in: heard)
        XCTAssertGreaterThan(atBrowser.score, 0.75, "SDES phone → rtpengine → browser: \(atBrowser)")
    }
}
