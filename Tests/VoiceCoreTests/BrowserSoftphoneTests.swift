import VoiceEmbedded
import Foundation
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// A browser softphone and the SDK, both registered at Kamailio's WebSocket listener: headless
/// Chromium runs a minimal SIP-over-WebSocket user agent (the test template's
/// `sipphone.html`: REGISTER, INVITE, ACK, BYE, digest) with the browser's own WebRTC; the SDK
/// is a `wss://` client with default media settings. Each calls the other; the media (ICE,
/// DTLS-SRTP, Opus) flows straight between them, and spoken sentences are scored with PESQ-WB
/// both ways.
final class BrowserSoftphoneTests: XCTestCase {
    private var cleanup: [() -> Void] = []

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
    }

    private struct Setup {
        let kamailio: KamailioPeer
        let alice: TestVoiceClient
        let pesq: PESQScorer
        let speech: [Int16]
        let play: String
    }

    private func setUp(aliceListens: Bool) throws -> (Setup, ScriptedNotificationDelegate) {
        try TestPrerequisites.installed("chromium")
        switch SIPPeerRequirement.check("pesq", isInstalled: { _ in PESQScorer.isInstalled }) {
        case .available: break
        case .skip(let message): throw XCTSkip(message)
        case .fail(let message):
            XCTFail(message)
            throw XCTSkip(message)
        }
        let kamailio = try CallOverWebSocketTests.startKamailio()
        cleanup.append { kamailio.stop() }
        let pesq = try PESQScorer()
        cleanup.append { pesq.cleanUp() }
        let speech = try pesq.shortSpeech()
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "softphone")
        cleanup.append { try? FileManager.default.removeItem(atPath: directory) }
        let play = directory + "/speech.wav"
        try BaresipWAVFile.write(speech, to: play)
        let alice = try CallOverWebSocketTests.webSocketClient(
            "alice", url: try XCTUnwrap(kamailio.secureWebSocketURL), kamailio: kamailio, signal: speech)
        cleanup.append { alice.client.shutdown() }
        let registered = Locked<VoiceError?>(VoiceError(.registrationError))
        let notifications = alice.listen(result: registered)
        XCTAssertNil(registered.withLock { $0 }, "alice registered over wss; log:\n\(kamailio.process.logTail())")
        return (Setup(kamailio: kamailio, alice: alice, pesq: pesq, speech: speech, play: play), notifications)
    }

    /// Recording time: two whole periods of the sample and some, so one aligned period is cut.
    private func seconds(_ speech: [Int16]) -> Double { 2.5 * Double(speech.count) / 48_000 + 1 }

    private func startPhone(_ setup: Setup, calling target: String?) throws -> WebRTCPeer {
        let phone = try WebRTCPeer.sipPhone(
            webSocketURL: setup.kamailio.webSocketURL, user: "bob", password: "bobpass", realm: setup.kamailio.configuration.realm,
            calling: target, play: setup.play, seconds: seconds(setup.speech))
        cleanup.append { phone.stop() }
        return phone
    }

    /// Both directions' PESQ-WB, after the call: the browser's recording and the SDK's.
    private func checkAudio(_ setup: Setup, _ phone: WebRTCPeer, stats: [String: Any], file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(stats["dtlsState"] as? String, "connected", "\(stats)", file: file, line: line)
        let heardByBrowser = try BaresipWAVFile.read(phone.recording).channel(0)
        let heardByUs = Array(setup.alice.device.recordedSamples.suffix(heardByBrowser.count))
        let toBrowser = try setup.pesq.score(loopOf: setup.speech, in: heardByBrowser, name: "sdk-to-browser")
        let toUs = try setup.pesq.score(loopOf: setup.speech, in: heardByUs, name: "browser-to-sdk")
        if let keep = ProcessInfo.processInfo.environment["KEEP_RECORDINGS"] {
            try? FileManager.default.copyItem(atPath: phone.recording, toPath: keep + "/browser.wav")
            try? BaresipWAVFile.write(heardByUs, to: keep + "/sdk.wav")
        }
        print("browser softphone: \(stats["selectedPair"] ?? "-"), \(stats["srtpCipher"] ?? "-"); PESQ-WB SDK → browser \(toBrowser.score) (\(toBrowser.alignment)), browser → SDK \(toUs.score) (\(toUs.alignment))")
        XCTAssertGreaterThanOrEqual(toBrowser.score, 3.5, "SDK → browser", file: file, line: line)
        XCTAssertGreaterThanOrEqual(toUs.score, 3.5, "browser → SDK", file: file, line: line)
    }

    func testBrowserCallsTheSDK() throws {
        let (setup, notifications) = try setUp(aliceListens: true)
        let calleeDelegate = RecordingCallDelegate()
        notifications.onInvite.withLock {
            $0 = { invite in
                _ = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = calleeDelegate.queue }, delegate: calleeDelegate)
            }
        }
        let phone = try startPhone(setup, calling: "sip:alice@\(setup.kamailio.configuration.realm)")
        XCTAssertEqual(calleeDelegate.wait(for: 1, timeout: 30), [.connected], "the browser's call; page:\n\(phone.logTail())")
        let stats = try XCTUnwrap(phone.waitForStats(timeout: seconds(setup.speech) + 40), "page:\n\(phone.logTail())")
        XCTAssertNil(stats["error"], "\(stats)\npage:\n\(phone.logTail())\nkamailio:\n\(setup.kamailio.process.logTail())")
        XCTAssertEqual(stats["sip"] as? [String], ["websocket open", "registered", "INVITE 180", "INVITE 200", "BYE 200"], "\(stats)")
        XCTAssertEqual(calleeDelegate.waitForEnd(), [.connected, .disconnected(nil)], "the browser's BYE")
        try checkAudio(setup, phone, stats: stats)
    }

    func testSDKCallsTheBrowser() throws {
        let (setup, _) = try setUp(aliceListens: false)
        let phone = try startPhone(setup, calling: nil)
        XCTAssertTrue(phone.waitUntilReady(), "the browser registered; page:\n\(phone.logTail())")
        let delegate = RecordingCallDelegate()
        let call = setup.alice.connect(to: "bob", delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 2, timeout: 20), [.ringing, .connected], "page:\n\(phone.logTail())")
        // The page records once media flows; hang up after that, and it reports.
        XCTAssertTrue(PollingWait.until(timeout: seconds(setup.speech) + 20) { FileManager.default.fileExists(atPath: phone.recording) })
        call.disconnect()
        let stats = try XCTUnwrap(phone.waitForStats(timeout: 30), "page:\n\(phone.logTail())")
        XCTAssertNil(stats["error"], "\(stats)\npage:\n\(phone.logTail())")
        XCTAssertEqual(stats["sip"] as? [String], ["websocket open", "registered", "INVITE received", "ACK received", "BYE received"], "\(stats)")
        try checkAudio(setup, phone, stats: stats)
    }

    /// No proxy: the SDK listens for WebSocket connections itself, and the browser's page calls
    /// it there without registering. The SDK hangs up: its BYE goes to the browser's `.invalid`
    /// Contact over the connection the INVITE came on.
    func testBrowserCallsTheSDKListeningForWebSockets() throws {
        try TestPrerequisites.installed("chromium")
        let signal = TestSignals.multiTone([(440, 6_000), (1_250, 4_000)], seconds: 2)
        let alice = try TestVoiceClient("alice", signal: signal, transport: .ws) { $0.acceptsWebSocketConnections = true }
        cleanup.append { alice.client.shutdown() }
        XCTAssertEqual(alice.client.localEndpoint.transport, .ws)
        let notifications = alice.listen()
        let calleeDelegate = RecordingCallDelegate()
        let accepted = Locked<Call?>(nil)
        notifications.onInvite.withLock {
            $0 = { invite in
                let call = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = calleeDelegate.queue }, delegate: calleeDelegate)
                accepted.withLock { $0 = call }
            }
        }
        let directory = try SIPPeerTemplate.makeTemporaryDirectory(prefix: "softphone-direct")
        cleanup.append { try? FileManager.default.removeItem(atPath: directory) }
        let play = directory + "/speech.wav"
        let theirs = TestSignals.speechLike(seconds: 2)
        try BaresipWAVFile.write(theirs, to: play)
        let port = alice.client.localEndpoint.port
        let phone = try WebRTCPeer.sipPhone(
            webSocketURL: "ws://127.0.0.1:\(port)/", user: "carol", password: "unused", realm: "127.0.0.1",
            calling: "sip:alice@127.0.0.1:\(port)", play: play, seconds: 3, registers: false, waitsForHangUp: true)
        cleanup.append { phone.stop() }
        XCTAssertEqual(calleeDelegate.wait(for: 1, timeout: 30), [.connected], "page:\n\(phone.logTail())")
        XCTAssertTrue(PollingWait.until(timeout: 20) { FileManager.default.fileExists(atPath: phone.recording) }, "page:\n\(phone.logTail())")
        accepted.withLock { $0 }?.disconnect()
        let stats = try XCTUnwrap(phone.waitForStats(timeout: 30), "page:\n\(phone.logTail())")
        XCTAssertNil(stats["error"], "\(stats)\npage:\n\(phone.logTail())")
        XCTAssertEqual(stats["sip"] as? [String], ["websocket open", "INVITE 180", "INVITE 200", "BYE received"], "\(stats)")
        XCTAssertEqual(stats["dtlsState"] as? String, "connected", "\(stats)")
        XCTAssertEqual(calleeDelegate.waitForEnd(), [.connected, .disconnected(nil)])
        let heard = try BaresipWAVFile.read(phone.recording).channel(0)
        XCTAssertGreaterThan(SpectralSimilarity(playedInALoop: signal, in: heard).score, 0.75, "SDK → browser")
        XCTAssertGreaterThan(SpectralSimilarity(playedInALoop: theirs, in: alice.device.recordedSamples).score, 0.75, "browser → SDK")
    }
}
