import VoiceEmbedded
import Foundation
import VoiceSupport
import VoiceTestAudio
import VoiceTestKit
import XCTest

@testable import VoiceCore
@testable import VoiceSIP

/// A 3xx sends our call on to its Contacts (RFC 3261 §8.1.3.4), and the app hears of each step
/// through Insights: Kamailio as a redirect server (302), and a redirect server answering 300
/// with several Contacts tried best q first. Real time on loopback; each call carries a tone
/// both ways after it was redirected.
final class CallRedirectTests: XCTestCase {
    private var cleanup: [() -> Void] = []

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
        super.tearDown()
    }

    private func client(_ name: String, tone: Double) throws -> TestVoiceClient {
        let client = try TestVoiceClient(name, signal: TestSignals.multiTone([(tone, 6_000)], seconds: 1))
        cleanup.append { client.client.shutdown() }
        return client
    }

    /// The `redirected` Insights events `client` published: each one's status (nil: a next
    /// Contact after a failed one) and target.
    private func redirects(of client: TestVoiceClient) -> [(status: Int?, target: String)] {
        client.insights.events.filter { $0.group == .connection && $0.name == "redirected" }.map { event in
            var status: Int?
            if case .int(let s)? = event.payload["status"] { status = s }
            var target = ""
            if case .string(let t)? = event.payload["target"] { target = t }
            return (status, target)
        }
    }

    /// Both ends hear each other's tone for the last half second.
    private func assertTonesBothWays(_ a: TestVoiceClient, _ aTone: Double, _ b: TestVoiceClient, _ bTone: Double) {
        Thread.sleep(forTimeInterval: 1.5)
        let heardByA = ToneAmplitude.of(bTone, in: Array(a.device.recordedSamples.suffix(24_000)))
        let heardByB = ToneAmplitude.of(aTone, in: Array(b.device.recordedSamples.suffix(24_000)))
        XCTAssertGreaterThan(heardByA, 1_000, "\(a.client.configuration.identity) hears \(bTone) Hz")
        XCTAssertGreaterThan(heardByB, 1_000, "\(b.client.configuration.identity) hears \(aTone) Hz")
    }

    func testKamailios302SendsTheCallToItsContact() throws {
        try TestPrerequisites.kamailio()
        let bob = try client("bob", tone: 900)
        let bobDelegate = RecordingCallDelegate()
        bob.listen().acceptEach(with: bobDelegate)
        var configuration = KamailioConfiguration()
        configuration.udpPort = try SIPPeerProcess.freePort()
        configuration.redirects = ["carol": "sip:bob@127.0.0.1:\(bob.client.localEndpoint.port)"]
        let kamailio = try KamailioPeer(configuration: configuration)
        cleanup.append { kamailio.stop() }

        let alice = try client("alice", tone: 600)
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: "sip:carol@127.0.0.1:\(configuration.udpPort)", delegate: delegate)
        cleanup.append { call.disconnect() }
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.callbacks.contains(.connected) }, "\(delegate.callbacks); kamailio:\n\(kamailio.log.suffix(2_000))")
        XCTAssertTrue(PollingWait.until(timeout: 5) { bobDelegate.callbacks.contains(.connected) })
        let steps = redirects(of: alice)
        XCTAssertEqual(steps.map(\.status), [302])
        XCTAssertEqual(steps.first?.target, "sip:bob@127.0.0.1:\(bob.client.localEndpoint.port)")
        assertTonesBothWays(alice, 600, bob, 900)
    }

    func testA300IsFollowedBestQFirstAndARefusingContactHandsOverToTheNext() throws {
        let bob = try client("bob", tone: 900)
        let bobDelegate = RecordingCallDelegate()
        bob.listen().acceptEach(with: bobDelegate)
        let carol = try client("carol", tone: 1_300)
        let carolInvites = carol.listen()
        carolInvites.onInvite.withLock { $0 = { invite in invite.reject() } }
        let bobURI = "sip:bob@127.0.0.1:\(bob.client.localEndpoint.port)"
        let carolURI = "sip:carol@127.0.0.1:\(carol.client.localEndpoint.port)"
        let redirector = try SIPScriptedPeer(
            redirect: .init(statusCode: 300, contacts: ["<\(bobURI)>;q=0.5", "<tel:+15550100>", "<\(carolURI)>;q=0.9"]))
        cleanup.append { redirector.shutdown() }

        let alice = try client("alice", tone: 600)
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: redirector.uri.description, delegate: delegate)
        cleanup.append { call.disconnect() }
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.callbacks.contains(.connected) }, "\(delegate.callbacks)")
        XCTAssertEqual(carolInvites.invites.withLock { $0.count }, 1, "carol (q=0.9) was asked first, and refused")
        let steps = redirects(of: alice)
        XCTAssertEqual(steps.map(\.status), [300, nil])
        XCTAssertEqual(steps.map(\.target), [carolURI, bobURI])
        assertTonesBothWays(alice, 600, bob, 900)
    }

    func testARedirectLoopFailsTheCallWithWhy() throws {
        let port = try SIPPeerProcess.freePort()
        // It redirects to itself.
        let redirector = try SIPScriptedPeer(port: port, redirect: .init(statusCode: 302, contacts: ["<sip:peer@127.0.0.1:\(port)>"]))
        cleanup.append { redirector.shutdown() }
        let alice = try client("alice", tone: 600)
        let delegate = RecordingCallDelegate()
        _ = alice.connect(to: redirector.uri.description, delegate: delegate)
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.endError.withLock { $0 } != nil })
        let error = try XCTUnwrap(delegate.endError.withLock { $0 })
        XCTAssertEqual(error.sipStatus, 302)
        XCTAssertTrue(error.failureReason?.contains("redirect loop") == true, "\(error)")
    }
}
