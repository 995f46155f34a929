import VoiceService
import VoiceRTP
import Dispatch
import Logging
import NIOCore
import NIOEmbedded
import VoiceMedia
import VoiceSIP
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Media that sends nothing and reports the stats the test sets: for calls run in virtual time.
final class ScriptedCallMedia: CallMedia, @unchecked Sendable {
    // @unchecked: touched on the test's thread only, which is the embedded loop's.
    let localHost: String
    let localPort: UInt16
    var isMuted = false
    var isOnHold = false
    private(set) var applied = 0
    private(set) var stopped = false
    /// What `stats` reports while the media runs.
    var reported = AudioStreamStats()
    /// Packets each second of virtual time adds to those received and lost (counted when
    /// `stats` is read: the call reads it once a second for its watchdog and five times for levels).
    var receivedPerRead: UInt64 = 0
    var lostPerRead: Int64 = 0
    /// Virtual milliseconds since the fixture was made.
    private let clock: () -> Int64
    private var lastSecond: Int64?
    /// Media flowing: 50 packets a second received.
    var receiving: Bool {
        get { receivedPerRead > 0 }
        set { receivedPerRead = newValue ? 50 : 0 }
    }

    /// Where a DTLS-SRTP call's media path reports (the call connects on it).
    private let onEvent: CallMediaFactory.EventHandler

    init(localHost: String, localPort: UInt16, onEvent: @escaping CallMediaFactory.EventHandler = { _ in }, clock: @escaping () -> Int64) {
        self.localHost = localHost
        self.localPort = localPort
        self.onEvent = onEvent
        self.clock = clock
    }

    func apply(_ negotiated: SDPNegotiatedMedia) throws(AudioStreamError) {
        applied += 1
        // A DTLS-SRTP call waits for its media path: this one is there at once.
        if applied == 1, case .dtlsSRTP = negotiated.encryption { onEvent(.mediaPathConnected(path: "scripted", security: "scripted")) }
    }
    func sendDigits(_ digits: String) throws(AudioStreamError) {}
    func switchAudioDevice(to device: any AudioDevice) throws(AudioStreamError) {}
    var stream: AudioStream? { nil }
    var stats: AudioStreamStats? {
        guard applied > 0, !stopped else { return nil }
        // A microphone's level moves (a constant one raises `constantAudioInputLevel`).
        let second = clock() / 1_000
        reported.inputLevel = second % 2 == 0 ? 800 : 2_400
        let elapsed = second - (lastSecond ?? second - 1)
        if elapsed > 0 {
            reported.packetsReceived += receivedPerRead * UInt64(elapsed)
            reported.packetsLost += lostPerRead * elapsed
        }
        lastSecond = second
        return reported
    }
    func stop() { stopped = true }
}

/// Clients on an in-memory SIP network and one `EmbeddedEventLoop`, with scripted media run
/// inline: `VoiceClient → CallCore → SIPUserAgent` with no sockets and no real time. Every SDK
/// call is made on the test's thread (the loop's); delegates only record, on their own queues.
final class VirtualTimeCalls {
    let loop = EmbeddedEventLoop()
    let network: SIPMemoryNetwork
    private let start: NIODeadline
    /// The media of every call, by the client's identity, newest last.
    private(set) var media: [String: [ScriptedCallMedia]] = [:]

    init() {
        network = SIPMemoryNetwork(loop: loop)
        start = loop.now
    }

    deinit { try? loop.syncShutdownGracefully() }

    /// Milliseconds since the fixture was made, on the loop's clock.
    var elapsedMilliseconds: Int64 { (loop.now - start).nanoseconds / 1_000_000 }

    func client(
        _ identity: String, host: String, configure: (inout VoiceClientConfiguration) -> Void = { _ in }
    ) throws -> VoiceClient {
        var quiet = Logger(label: "test.virtual")
        quiet.logLevel = .critical
        var configuration = VoiceClientConfiguration(
            identity: identity, domain: host, listenHost: host, listenPort: 5060, registers: false,
            logger: quiet)
        configure(&configuration)
        let publisher = RecordingInsightsPublisher()
        configuration.publishInsights(to: publisher)
        insights[identity] = publisher
        let ports = Locked(30_000)
        let recorded = Locked<[ScriptedCallMedia]>([])
        let client = try VoiceClient(
            configuration: configuration, transport: network.transportFactory,
            mediaPorts: { loop in loop.makeSucceededFuture(UInt16(ports.withLock { $0 += 2; return $0 })) },
            media: CallMediaFactory { [loop, start] request, onEvent in
                let media = ScriptedCallMedia(localHost: request.localHost, localPort: request.localPort, onEvent: onEvent) {
                    (loop.now - start).nanoseconds / 1_000_000
                }
                recorded.withLock { $0.append(media) }
                return media
            },
            runsMediaJobsInline: true)
        mediaBoxes[identity] = recorded
        return client
    }

    private var mediaBoxes: [String: Locked<[ScriptedCallMedia]>] = [:]
    /// Each client's Insights events.
    private(set) var insights: [String: RecordingInsightsPublisher] = [:]

    /// The media of `identity`'s latest call.
    func latestMedia(of identity: String) -> ScriptedCallMedia? { mediaBoxes[identity]?.withLock { $0.last } }

    /// Runs what is due now, then lets the delegate queues catch up.
    func settle(_ queues: DispatchQueue...) { settle(queues) }

    func settle(_ queues: [DispatchQueue]) {
        for _ in 0..<3 {
            loop.run()
            for queue in queues { queue.sync {} }
        }
    }

    /// Moves virtual time on by `milliseconds`, running what falls due, then settles.
    func advance(_ milliseconds: Int64, settling queues: DispatchQueue...) {
        loop.advanceTime(by: .milliseconds(milliseconds))
        settle(queues)
    }

    /// `client` calls `destination` (a `To` parameter), with `delegate` on its own queue; settles.
    func place(from client: VoiceClient, to destination: String, delegate: RecordingCallDelegate) -> Call {
        let call = client.connect(
            options: ConnectOptions(accessToken: CallTestTokens.token(client.configuration.identity)) { builder in
                builder.params = ["To": destination]
                builder.delegateQueue = delegate.queue
            },
            delegate: delegate)
        settle(delegate.queue)
        return call
    }

    /// Listening clients, kept for the fixture's life.
    private var listeners: [VoiceClient] = []

    /// A client that registers with a scripted notification delegate (bob, usually), settled;
    /// the fixture keeps it.
    func listener(_ identity: String, host: String) throws -> (client: VoiceClient, notifications: ScriptedNotificationDelegate) {
        let client = try self.client(identity, host: host)
        listeners.append(client)
        let notifications = ScriptedNotificationDelegate()
        client.register(accessToken: CallTestTokens.token(identity), notificationDelegate: notifications, delegateQueue: notifications.queue) { _ in }
        settle(notifications.queue)
        return (client, notifications)
    }

    /// alice (127.0.0.1) calls bob (127.0.0.2), who accepts: the call connected on both sides
    /// (asserted unless `checkConnected` is false).
    func connectedCall(checkConnected: Bool = true) throws -> (alice: VoiceClient, bob: VoiceClient, call: Call, aliceDelegate: RecordingCallDelegate, bobDelegate: RecordingCallDelegate) {
        let alice = try client("alice", host: "127.0.0.1")
        let (bob, notifications) = try listener("bob", host: "127.0.0.2")
        let aliceDelegate = RecordingCallDelegate()
        let call = place(from: alice, to: "sip:bob@127.0.0.2:5060", delegate: aliceDelegate)
        settle(notifications.queue)
        let invite = try XCTUnwrap(notifications.invites.withLock { $0.first }, "bob was invited")
        let bobDelegate = RecordingCallDelegate()
        _ = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = bobDelegate.queue }, delegate: bobDelegate)
        settle(aliceDelegate.queue, bobDelegate.queue)
        if checkConnected {
            XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected])
            XCTAssertEqual(bobDelegate.callbacks, [.connected])
        }
        return (alice, bob, call, aliceDelegate, bobDelegate)
    }

    /// The times (ms since the fixture was made) at which requests of `method` were sent.
    func sendTimes(of method: SIPMethod) -> [Int64] {
        sendTimes { if case .request(let request) = $0 { request.method == method } else { false } }
    }

    /// The times (ms since the fixture was made) at which responses with `status` were sent.
    func sendTimes(ofStatus status: Int) -> [Int64] {
        sendTimes { if case .response(let response) = $0 { response.statusCode == status } else { false } }
    }

    /// The times at which each new request of `method` (a new Via branch) first went out,
    /// leaving out its retransmissions.
    func transactionStartTimes(of method: SIPMethod) -> [Int64] {
        var branches: Set<String> = []
        return sendTimes {
            guard case .request(let request) = $0, request.method == method,
                let branch = try? request.headers.topVia().branch
            else { return false }
            return branches.insert(branch).inserted
        }
    }

    private func sendTimes(where matches: (SIPMessage) -> Bool) -> [Int64] {
        network.sent.compactMap { datagram in
            guard let message = datagram.message, matches(message) else { return nil }
            return (datagram.time - start).nanoseconds / 1_000_000
        }
    }
}
