import VoiceEmbedded
import Dispatch
import Foundation
import Logging
import ServiceLifecycle
import VoiceMedia
import VoiceTestKit
import VoiceSupport
import XCTest

import VoiceCore
import VoiceService
import VoiceTestAudio
import VoiceMediaTypes

/// The tour of the README before the app-facing API was trimmed, line for line where it can run
/// here (loopback instead of a server, in-memory audio instead of ALSA): the API tour and the
/// service. It is code written against the TVOCall/TVOCallInvite shape, kept so that such code
/// keeps compiling and behaving (the README's current examples are DocumentationExamplesTests').
/// The examples use only the public API; the tests around them use the test kit.
final class ReadmeTourTests: XCTestCase {
    /// The app object of the tour: call delegate and notification delegate.
    final class TourApp: CallDelegate, NotificationDelegate, @unchecked Sendable {
        // @unchecked: every property is touched on `myQueue` only, or behind a lock.
        let myQueue = DispatchQueue(label: "tour.app")
        let log = Locked<[String]>([])
        var call: Call?

        func callDidStartRinging(_ call: Call) { log.withLock { $0.append("ringing") } }
        func callDidConnect(_ call: Call) {
            log.withLock { $0.append("connected") }
            call.sendDigits("1234#")
        }
        func call(_ call: Call, didFailToConnectWithError error: VoiceError) {
            log.withLock { $0.append("failed \(error.code.rawValue)") }
        }
        func call(_ call: Call, didDisconnectWithError error: VoiceError?) { log.withLock { $0.append("disconnected") } }

        func callInviteReceived(_ callInvite: CallInvite) {
            log.withLock { $0.append("invite from \(callInvite.from ?? "?") \(callInvite.customParameters)") }
            self.call = callInvite.accept(options: AcceptOptions(callInvite: callInvite) { $0.delegateQueue = self.myQueue },
                                          delegate: self)
        }
        func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: VoiceError) {}
    }

    func testTheClientOfTheTourIsConstructedWithoutTraffic() throws {
        let client = try VoiceClient(configuration: VoiceClientConfiguration(
            identity: "alice", domain: "sip.example.com", transport: .tls,
            listenHost: "127.0.0.1",  // the README's 192.0.2.10 is not this machine's
            outboundProxy: try SIPServerAddress("sip:proxy.example.com;transport=tls"), username: "alice", password: "secret"),
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
        let registered = Locked<VoiceError??>(nil)
        bob.register(notificationDelegate: bobApp, delegateQueue: bobApp.myQueue) { error in
            registered.withLock { $0 = .some(error) }
        }
        XCTAssertTrue(PollingWait.until(timeout: 5) { registered.withLock { $0 } != nil })
        XCTAssertNil(registered.withLock { $0 } ?? nil, "listening without a token")

        let options = ConnectOptions { builder in
            builder.params = ["To": "sip:bob@127.0.0.1:\(bob.localEndpoint.port)", "customer": "42"]
            builder.delegateQueue = aliceApp.myQueue
        }
        let call = alice.connect(options: options, delegate: aliceApp)
        XCTAssertTrue(PollingWait.until(timeout: 10) { aliceApp.log.withLock { $0 }.contains("connected") })
        XCTAssertEqual(bobApp.log.withLock { $0.first }, "invite from alice [\"customer\": \"42\"]")

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
        XCTAssertEqual(aliceApp.log.withLock { $0 }, ["ringing", "connected", "disconnected"])
    }

    // MARK: - "In a Linux service"

    // The README's two classes, as written.
    final class Answerer: NotificationDelegate, Sendable {
        func callInviteReceived(_ invite: CallInvite) {
            let prompt = try? FileAudioDevice(input: .wav(path: "prompt.wav"), endOfInput: .loop)
            _ = invite.accept(options: AcceptOptions(callInvite: invite) { $0.audioDevice = prompt }, delegate: Calls())
        }
        func cancelledCallInviteReceived(_ invite: CancelledCallInvite, error: VoiceError) {}
    }

    final class Calls: CallDelegate, Sendable {
        func callDidConnect(_ call: Call) {}
        func call(_ call: Call, didFailToConnectWithError error: VoiceError) {}
        func call(_ call: Call, didDisconnectWithError error: VoiceError?) {}
    }

    /// The README's `main()`, run without `VOICE_ACCESS_TOKEN` against a registrar that, like a
    /// plain SIP server, asks for digest credentials: it registers (no 20101), answers a call,
    /// and on graceful shutdown hangs up with BYE and unregisters. Differences from the README:
    /// the registrar is a stub on loopback (set as `registrar`, the domain stays), the
    /// environment is given, and the shutdown is triggered by the test rather than SIGTERM.
    func testTheServiceRegistersWithoutATokenAnswersAndShutsDownGracefully() async throws {
        let registrar = try SIPStubServer()
        let registeredBox = Locked<VoiceError??>(nil)

        let environment = ["SIP_PASSWORD": "ivrpass"]  // no VOICE_ACCESS_TOKEN
        let logger = Logger(label: "ivr")
        var configuration = VoiceClientConfiguration(identity: "ivr", domain: "sip.example.com")
        configuration.registrar = try SIPServerAddress(registrar.hostPort)  // the test's registrar
        configuration.username = "ivr"
        configuration.password = environment["SIP_PASSWORD"]  // digest, for a plain SIP server
        let client = try VoiceClient(configuration: configuration)
        let answerer = Answerer()
        // A token only for a server that uses them; without VOICE_ACCESS_TOKEN none is sent.
        client.register(
            accessToken: environment["VOICE_ACCESS_TOKEN"], notificationDelegate: answerer,
            delegateQueue: DispatchQueue(label: "ivr")
        ) { error in
            if let error { logger.error("registration failed: \(error)") }
            registeredBox.withLock { $0 = .some(error) }
        }
        let group = ServiceGroup(
            services: [VoiceClientService(client: client)], gracefulShutdownSignals: [], logger: logger)
        let running = Task { try await group.run() }

        let first = try registrar.nextRequest(.register)
        XCTAssertNil(first.headers.first("Authorization"))
        try registrar.reply(first, 401, headers: [("WWW-Authenticate", #"Digest realm="sip.example.com", nonce="n1", algorithm=MD5"#)])
        let second = try registrar.nextRequest(.register, after: try first.headers.cseq().sequence)
        let authorization = try XCTUnwrap(second.headers.first("Authorization"))
        XCTAssertTrue(authorization.hasPrefix("Digest ") && authorization.contains(#"username="ivr""#), authorization)
        try registrar.acceptRegistration(second)
        XCTAssertTrue(PollingWait.until(timeout: 10) { registeredBox.withLock { $0 } != nil })
        XCTAssertNil(registeredBox.withLock { $0 } ?? nil, "registered without a token")

        // A caller reaches the service directly; the Answerer picks up.
        let caller = try VoiceClient(configuration: VoiceClientConfiguration(identity: "caller", domain: "127.0.0.1", registers: false))
        defer { caller.shutdown() }
        let delegate = RecordingCallDelegate()
        _ = caller.connect(
            options: ConnectOptions { builder in
                builder.params = ["To": "sip:ivr@127.0.0.1:\(client.localEndpoint.port)"]
                builder.delegateQueue = delegate.queue
            },
            delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected])

        // What SIGTERM does: the call ends with the service's BYE, then it unregisters.
        await group.triggerGracefulShutdown()
        let unregister = try registrar.nextRequest(.register, after: try second.headers.cseq().sequence)
        let contact = unregister.headers.first("Contact") ?? ""
        XCTAssertTrue(unregister.headers.first("Expires") == "0" || contact.contains("expires=0"), "an unregistration: \(contact)")
        XCTAssertNil(unregister.headers["Authorization"].first { $0.hasPrefix("Bearer") })
        try registrar.acceptRegistration(unregister, expires: 0)
        try await running.value
        XCTAssertEqual(delegate.waitForEnd().last, .disconnected(nil))
    }
}
