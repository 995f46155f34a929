import Dispatch
import Foundation
import NIOConcurrencyHelpers
import VoiceMedia
import VoiceTestKit
import VoiceSupport
import XCTest

import VoiceCore
import VoiceSignals
import VoiceMediaTypes

/// The README's API tour, line for line where it can run here (loopback instead of a server,
/// in-memory audio instead of ALSA): if this stops compiling or passing, the README is wrong.
/// Only the public API is imported.
final class ReadmeTourTests: XCTestCase {
    /// The app object of the tour: call delegate and notification delegate.
    final class TourApp: CallDelegate, NotificationDelegate, @unchecked Sendable {
        // @unchecked: every property is touched on `myQueue` only, or behind a lock.
        let myQueue = DispatchQueue(label: "tour.app")
        let log = NIOLockedValueBox<[String]>([])
        var call: Call?

        func callDidStartRinging(_ call: Call) { log.withLockedValue { $0.append("ringing") } }
        func callDidConnect(_ call: Call) {
            log.withLockedValue { $0.append("connected") }
            call.sendDigits("1234#")
        }
        func call(_ call: Call, didFailToConnectWithError error: VoiceError) {
            log.withLockedValue { $0.append("failed \(error.code.rawValue)") }
        }
        func call(_ call: Call, didDisconnectWithError error: VoiceError?) { log.withLockedValue { $0.append("disconnected") } }

        func callInviteReceived(_ callInvite: CallInvite) {
            log.withLockedValue { $0.append("invite from \(callInvite.from ?? "?") \(callInvite.customParameters)") }
            self.call = callInvite.accept(options: AcceptOptions(callInvite: callInvite) { $0.delegateQueue = self.myQueue },
                                          delegate: self)
        }
        func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: VoiceError) {}
    }

    func testTheClientOfTheTourIsConstructedWithoutTraffic() throws {
        let client = try VoiceClient(configuration: VoiceClientConfiguration(
            identity: "alice", domain: "sip.example.com", transport: .tls,
            listenHost: "127.0.0.1",  // the README's 192.0.2.10 is not this machine's
            outboundProxy: "sip:proxy.example.com;transport=tls", username: "alice", password: "secret"),
            audioDevice: BufferAudioDevice())
        XCTAssertEqual(client.configuration.identity, "alice")
        let app = TourApp()
        let handled = client.handleNotification(["aps": "not a voice notification"], delegate: app, delegateQueue: app.myQueue)
        XCTAssertFalse(handled)
        client.shutdown()
    }

    func testTheTourPlacesAcceptsControlsAndEndsACall() async throws {
        let aliceApp = TourApp(), bobApp = TourApp()
        let alice = try VoiceClient(
            configuration: VoiceClientConfiguration(identity: "alice", domain: "127.0.0.1", registers: false),
            audioDevice: BufferAudioDevice(captureSamples: TestSignals.speechLike(seconds: 1), loop: true))
        let bob = try VoiceClient(
            configuration: VoiceClientConfiguration(identity: "bob", domain: "127.0.0.1", registers: false),
            audioDevice: BufferAudioDevice())
        defer {
            alice.shutdown()
            bob.shutdown()
        }
        let registered = NIOLockedValueBox<VoiceError??>(nil)
        bob.register(accessToken: CallTestTokens.token("bob"), notificationDelegate: bobApp, delegateQueue: bobApp.myQueue) { error in
            registered.withLockedValue { $0 = .some(error) }
        }
        XCTAssertTrue(PollingWait.until(timeout: 5) { registered.withLockedValue { $0 } != nil })

        let options = ConnectOptions(accessToken: CallTestTokens.token("alice")) { builder in
            builder.params = ["To": "sip:bob@127.0.0.1:\(bob.localEndpoint.port)", "customer": "42"]
            builder.delegateQueue = aliceApp.myQueue
        }
        let call = alice.connect(options: options, delegate: aliceApp)
        XCTAssertTrue(PollingWait.until(timeout: 10) { aliceApp.log.withLockedValue { $0 }.contains("connected") })
        XCTAssertEqual(bobApp.log.withLockedValue { $0.first }, "invite from alice [\"customer\": \"42\"]")

        let sid = call.sendMessage(CallMessage(content: #"{"order":42}"#))
        XCTAssertTrue(sid.hasPrefix("KX"), sid)
        call.isMuted = true
        call.isOnHold = true
        XCTAssertTrue(PollingWait.until(timeout: 5) { call.isMuted && call.isOnHold })
        let report = await call.stats()
        XCTAssertNotNil(report, "codec, packets, loss, jitter, RTT, levels, MOS")
        call.disconnect()
        var events: [CallEvent] = []
        for await event in call.events { events.append(event) }
        XCTAssertEqual(events.first, .ringing)
        XCTAssertEqual(events.last, .disconnected(nil))
        XCTAssertEqual(aliceApp.log.withLockedValue { $0 }, ["ringing", "connected", "disconnected"])
    }
}
