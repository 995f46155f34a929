import Foundation
import NIOConcurrencyHelpers
import Logging
import NIOCore
import NIOEmbedded
import VoiceTestKit
import XCTest

@testable import VoiceCore
@testable import VoiceMedia
@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes
import VoiceSupport

/// Media that does nothing and receives nothing: for a client whose calls run in virtual time.
private final class SilentCallMedia: CallMedia, @unchecked Sendable {
    // @unchecked: the flags are set on the test's loop thread only.
    let localHost: String
    let localPort: UInt16
    var isMuted = false
    var isOnHold = false
    private(set) var applied = 0
    private(set) var stopped = false

    init(localHost: String, localPort: UInt16) {
        self.localHost = localHost
        self.localPort = localPort
    }

    func apply(_ negotiated: SDPNegotiatedMedia) throws(AudioStreamError) { applied += 1 }
    func sendDigits(_ digits: String) throws(AudioStreamError) {}
    var stream: AudioStream? { nil }
    var stats: AudioStreamStats? { applied > 0 && !stopped ? AudioStreamStats() : nil }
    func stop() { stopped = true }
}

/// Two clients on an in-memory network and an `EmbeddedEventLoop`, with silent media run inline:
/// `VoiceClient → CallCore → SIPUserAgent` with no sockets and no real time. Every SDK call is
/// made on the test's thread (the loop's); delegates only record, on their own queues.
final class CallVirtualTimeTests: XCTestCase {
    private var loop: EmbeddedEventLoop!
    private var network: SIPMemoryNetwork!

    override func setUp() {
        loop = EmbeddedEventLoop()
        network = SIPMemoryNetwork(loop: loop)
    }

    override func tearDown() {
        try? loop.syncShutdownGracefully()
    }

    private func client(_ identity: String, host: String) throws -> VoiceClient {
        var quiet = Logger(label: "test.virtual")
        quiet.logLevel = .critical
        let ports = NIOLockedValueBox(30_000)
        return try VoiceClient(
            configuration: VoiceClientConfiguration(
                identity: identity, domain: host, listenHost: host, listenPort: 5060, registers: false,
                insightsPublisher: RecordingInsightsPublisher(), logger: quiet),
            transport: network.transportFactory,
            mediaPorts: { loop in loop.makeSucceededFuture(UInt16(ports.withLockedValue { $0 += 2; return $0 })) },
            media: CallMediaFactory { host, port, _, _, _ in SilentCallMedia(localHost: host, localPort: port) },
            runsMediaJobsInline: true)
    }

    /// Runs what is due now, then lets the delegate queues catch up.
    private func settle(_ queues: DispatchQueue...) {
        for _ in 0..<3 {
            loop.run()
            for queue in queues { queue.sync {} }
        }
    }

    func testACallWhoseMediaGoesSilentReconnectsAfterThreeSecondsAndFailsThirtySecondsLater() throws {
        let alice = try client("alice", host: "127.0.0.1")
        let bob = try client("bob", host: "127.0.0.2")
        let notifications = ScriptedNotificationDelegate()
        bob.register(accessToken: CallTestTokens.token("bob"), notificationDelegate: notifications, delegateQueue: notifications.queue) { _ in }
        settle(notifications.queue)

        let aliceDelegate = RecordingCallDelegate()
        let call = alice.connect(
            options: ConnectOptions(accessToken: CallTestTokens.token("alice")) { builder in
                builder.params = ["To": "sip:bob@127.0.0.2:5060"]
                builder.delegateQueue = aliceDelegate.queue
            },
            delegate: aliceDelegate)
        settle(notifications.queue, aliceDelegate.queue)
        let invite = try XCTUnwrap(notifications.invites.withLockedValue { $0.first }, "bob was invited")
        let bobDelegate = RecordingCallDelegate()
        _ = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = bobDelegate.queue }, delegate: bobDelegate)
        settle(aliceDelegate.queue, bobDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected])
        XCTAssertEqual(bobDelegate.callbacks, [.connected])

        // No packet ever arrives. The watchdog ticks each second; more than 3 s of silence
        // (mediaSilenceThreshold) is seen at the fourth tick.
        loop.advanceTime(by: .milliseconds(3_999))
        settle(aliceDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected])
        loop.advanceTime(by: .milliseconds(1))
        settle(aliceDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected, .reconnecting(.mediaConnectionError)])

        // mediaReconnectTimeout (30 s) later, the call ends with the same error and hangs up.
        loop.advanceTime(by: .milliseconds(29_999))
        settle(aliceDelegate.queue, bobDelegate.queue)
        XCTAssertEqual(call.state, .reconnecting)
        loop.advanceTime(by: .milliseconds(1))
        settle(aliceDelegate.queue, bobDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected, .reconnecting(.mediaConnectionError), .disconnected(.mediaConnectionError)])
        XCTAssertEqual(call.state, .disconnected)
        // Bob's media is just as silent, and his call started at the same instant: it ends with him.
        XCTAssertEqual(bobDelegate.callbacks, [.connected, .reconnecting(.mediaConnectionError), .disconnected(.mediaConnectionError)])
        let byes = network.sent.filter { datagram in
            if case .request(let request)? = datagram.message { request.method == .bye } else { false }
        }
        XCTAssertFalse(byes.isEmpty, "the dialog was hung up")
        XCTAssertTrue(byes.allSatisfy { $0.time == byes[0].time }, "at the timeout, not later")
    }
}
