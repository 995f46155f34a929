import VoiceEmbedded
import Dispatch
import Foundation
import Logging
import VoiceMedia
import VoiceMediaTypes
import VoiceSupport
import XCTest

@testable import VoiceCore
@testable import VoiceSIP
@testable import VoiceSIPAgent

/// Digits the far end presses reach the app once per press, in order, however they were sent:
/// RFC 4733 events in the media, SIP INFO `application/dtmf-relay`, or both for one press. In
/// virtual time (``VirtualCallWorld``): a bare SIP user agent answers the call and sends the
/// digits, from its own stream on the world's media engine and through its own agent.
final class CallDigitsReceivedTests: VirtualTimeTestCase {

    /// A SIP peer that answers every call and presses keys on command.
    private final class KeyPressingPeer: Sendable {
        let agent: SIPUserAgent
        let endpoint: SIPTransportEndpoint
        let established = Locked<SDPNegotiatedMedia?>(nil)
        private let media = Locked<SIPCallMedia?>(nil)
        private let handle = Locked<SIPCallHandle?>(nil)

        var mediaRunning: Bool { media.withLock { $0 != nil } }

        init(world: VirtualCallWorld, telephoneEvents: Bool) throws {
            var logger = Logger(label: "test.sip.peer")
            logger.logLevel = .warning
            let host = world.makeHost()
            let configuration = SIPUserAgentConfiguration(
                identity: SIPNameAddress(uri: SIPURI(user: "peer", host: host)), listenHost: host, listenPort: 5060,
                media: SDPLocalCapabilities(address: host, port: 0, telephoneEvents: telephoneEvents))
            let box = Locked<SIPUserAgent?>(nil)
            let established = self.established, media = self.media, handleBox = self.handle
            let engine = world.engine
            let created = try SIPUserAgent(
                configuration: configuration, transport: world.sipNetwork.transportFactory, clock: world.clock, mediaPorts: world.mediaPorts(),
                logger: logger
            ) { event in
                guard let agent = box.withLock({ $0 }) else { return }
                switch event {
                case .incomingCall(let handle, _, _, _):
                    handleBox.withLock { $0 = handle }
                    agent.accept(handle)
                case .call(let handle, .established(let negotiated)):
                    established.withLock { $0 = negotiated }
                    guard let info = agent.callInfo(handle) else { return }
                    let audio = SIPCallMedia(
                        localHost: host, localPort: info.mediaPort, reserved: info.reservedMedia, audioDevice: nil, engine: engine)
                    try? audio.apply(negotiated)
                    media.withLock { $0 = audio }
                case .call(_, .terminated):
                    media.withLock { $0?.stop() }
                default:
                    break
                }
            }
            box.withLock { $0 = created }
            agent = created
            let started = created.start()
            world.settle()
            endpoint = try started.wait()
        }

        var address: String { "sip:peer@\(endpoint.host):\(endpoint.port)" }

        /// Presses `digits` as RFC 4733 events (100 ms each, 60 ms apart).
        func pressInMedia(_ digits: String) throws {
            let audio = try XCTUnwrap(media.withLock { $0 })
            try audio.sendDigits(digits)
        }

        /// Presses `digit` as one SIP INFO `application/dtmf-relay` of `duration` ms, and waits
        /// for its answer.
        func pressInInfo(_ digit: Character, duration: Int = 160, world: VirtualCallWorld) throws {
            let call = try XCTUnwrap(handle.withLock { $0 })
            let relay = try XCTUnwrap(SIPDTMFRelay(digit: digit, duration: duration))
            let status = Locked<Int?>(nil)
            agent.sendInfo(call, contentType: SIPDTMFRelay.contentType, body: relay.body).whenComplete { result in
                status.withLock { $0 = (try? result.get()) ?? -1 }
            }
            XCTAssertTrue(PollingWait.until(timeout: 5) { status.withLock { $0 } != nil })
            XCTAssertEqual(status.withLock { $0 }, 200, "the INFO was answered")
        }

        func stop(in world: VirtualCallWorld) {
            media.withLock { $0?.stop() }
            _ = agent.shutdown()
            world.settle()
        }
    }

    private func connectedCall(to peer: KeyPressingPeer, delegate: RecordingCallDelegate) throws -> (TestVoiceClient, Call) {
        let alice = try TestVoiceClient("alice", world: world)
        let call = alice.connect(to: peer.address, delegate: delegate)
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.callbacks.contains(.connected) }, "\(delegate.callbacks)")
        XCTAssertTrue(PollingWait.until(timeout: 10) { peer.mediaRunning }, "the peer's media runs")
        return (alice, call)
    }

    func testRFC4733DigitsArriveOncePerPressInOrderWithTheirDuration() throws {
        let peer = try KeyPressingPeer(world: world, telephoneEvents: true)
        defer { peer.stop(in: world) }
        let delegate = RecordingCallDelegate()
        let (alice, call) = try connectedCall(to: peer, delegate: delegate)
        defer { alice.client.shutdown() }
        let events = CallEventRecorder(call)
        try peer.pressInMedia("1*#9A0")
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.digitString == "1*#9A0" }, delegate.digitString)
        let digits = delegate.digits.withLock { $0 }
        for digit in digits {
            XCTAssertEqual(digit.transport, .rtpEvent)
            XCTAssertEqual(digit.duration, 0.1, accuracy: 0.001, "the 100 ms the peer sent, from the event's RTP units")
        }
        // Each end packet went three times; each press arrived once, on the event sequence too.
        world.advance(seconds: 1)
        XCTAssertEqual(delegate.digitString, "1*#9A0")
        XCTAssertTrue(PollingWait.until(timeout: 5) { events.digits == digits }, "\(events.digits)")
        call.disconnect()
    }

    func testINFODigitsArriveWhenNoTelephoneEventWasNegotiated() throws {
        let peer = try KeyPressingPeer(world: world, telephoneEvents: false)
        defer { peer.stop(in: world) }
        let delegate = RecordingCallDelegate()
        let (alice, call) = try connectedCall(to: peer, delegate: delegate)
        defer { alice.client.shutdown() }
        XCTAssertNil(peer.established.withLock { $0 }?.telephoneEventPayloadType)
        XCTAssertThrowsError(try peer.pressInMedia("1"), "no telephone-event: the peer cannot send RFC 4733")
        try peer.pressInInfo("5", duration: 240, world: world)
        try peer.pressInInfo("#", world: world)
        try peer.pressInInfo("5", world: world)
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.digitString == "5#5" }, delegate.digitString)
        let digits = delegate.digits.withLock { $0 }
        XCTAssertEqual(digits.map(\.transport), [.sipInfo, .sipInfo, .sipInfo])
        XCTAssertEqual(digits.first?.duration ?? 0, 0.24, accuracy: 0.0001)
        call.disconnect()
    }

    func testAPeerThatSendsEachPressBothWaysIsHeardOncePerPress() throws {
        let peer = try KeyPressingPeer(world: world, telephoneEvents: true)
        defer { peer.stop(in: world) }
        let delegate = RecordingCallDelegate()
        let (alice, call) = try connectedCall(to: peer, delegate: delegate)
        defer { alice.client.shutdown() }
        // As a gateway that relays both: INFO at the key press, the RTP event as the tone plays.
        for digit in "1122#" {
            try peer.pressInInfo(digit, world: world)
            try peer.pressInMedia(String(digit))
            world.advance(seconds: 0.3)
        }
        world.advance(seconds: 1)
        XCTAssertEqual(delegate.digitString, "1122#", "a key pressed twice is two presses; each press once")
        XCTAssertEqual(delegate.digits.withLock { $0 }.map(\.transport), Array(repeating: .sipInfo, count: 5), "the first to arrive is kept")
        call.disconnect()
    }

    func testABurstOfPressesWhileTheAppsQueueIsStuckLosesNothing() throws {
        let peer = try KeyPressingPeer(world: world, telephoneEvents: true)
        defer { peer.stop(in: world) }
        let delegate = RecordingCallDelegate()
        let (alice, call) = try connectedCall(to: peer, delegate: delegate)
        defer { alice.client.shutdown() }
        // The app's delegate queue is stuck (a slow handler) while the keys are pressed.
        let stuck = DispatchSemaphore(value: 0)
        world.unwatch(delegate.queue)  // the world must not wait for it
        delegate.queue.async { stuck.wait() }
        let sent = String(repeating: "0123456789*#ABCD", count: 3)
        try peer.pressInMedia(sent)
        world.advance(seconds: Double(sent.count) * 0.3 + 1)  // a key is 100 ms, 60 ms apart, its end sent three times
        for digit in "159" { try peer.pressInInfo(digit, world: world) }
        XCTAssertEqual(delegate.digitString, "", "nothing delivered while the queue is stuck")
        stuck.signal()
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.digitString == sent + "159" }, delegate.digitString)
        call.disconnect()
    }
}

/// Collects a call's ``Call/events`` in the background.
private final class CallEventRecorder: Sendable {
    private let seen = Locked<[CallEvent]>([])
    private let task: Task<Void, Never>

    init(_ call: Call) {
        let seen = self.seen
        task = Task { for await event in call.events { seen.withLock { $0.append(event) } } }
    }

    deinit { task.cancel() }

    var digits: [CallDigit] {
        seen.withLock { $0 }.compactMap { if case .digitReceived(let digit) = $0 { digit } else { nil } }
    }
}
