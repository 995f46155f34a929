import VoiceEmbedded
import Foundation
import Logging
import VoiceMedia
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceCore
@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes

/// `sendDigits` over a real call to a bare SIP user agent that answers, runs its own media and
/// records every digit it gets: RFC 4733 events on its audio stream, or SIP INFO
/// `application/dtmf-relay` when it does not offer telephone-event. In virtual time
/// (``VirtualCallWorld``): the peer's agent on the world's loop and SIP network, its stream on
/// the world's media engine.
final class CallActionsDigitsTests: VirtualTimeTestCase {

    /// A SIP peer that answers every call and records the digits it receives.
    private final class DigitRecordingPeer: Sendable {
        let agent: SIPUserAgent
        let endpoint: SIPTransportEndpoint
        /// RFC 4733 events that reached the peer's audio stream, as digits.
        let rfc4733Digits: Locked<String>
        /// Digits that arrived as SIP INFO.
        let infoDigits: Locked<String>
        /// When each digit arrived, either way (the world's virtual milliseconds).
        let arrivals = Locked<[(Character, Int64)]>([])

        /// Seconds between the arrivals of `first` and `second`.
        func gap(from first: Character, to second: Character) -> Double? {
            let list = arrivals.withLock { $0 }
            guard let a = list.first(where: { $0.0 == first })?.1, let b = list.first(where: { $0.0 == second })?.1 else { return nil }
            return Double(b - a) / 1000
        }
        let established: Locked<SDPNegotiatedMedia?>
        private let media: Locked<SIPCallMedia?>

        /// Calls waiting for ``answer()`` when the peer does not answer at once.
        private let waiting = Locked<[SIPCallHandle]>([])

        /// True once the peer's media for the call runs (digits sent before would be lost).
        var mediaRunning: Bool { media.withLock { $0 != nil } }

        /// Answers the calls that are ringing.
        func answer() {
            for handle in waiting.withLock({ list in defer { list = [] }; return list }) { agent.accept(handle) }
        }

        init(world: VirtualCallWorld, telephoneEvents: Bool, answerAtOnce: Bool = true) throws {
            var logger = Logger(label: "test.sip.peer")
            logger.logLevel = .warning
            let host = world.makeHost()
            let configuration = SIPUserAgentConfiguration(
                identity: SIPNameAddress(uri: SIPURI(user: "peer", host: host)), listenHost: host, listenPort: 5060,
                media: SDPLocalCapabilities(address: host, port: 0, telephoneEvents: telephoneEvents))
            let box = Locked<SIPUserAgent?>(nil)
            let rfc4733Digits = Locked(""), infoDigits = Locked("")
            let established = Locked<SDPNegotiatedMedia?>(nil), media = Locked<SIPCallMedia?>(nil)
            (self.rfc4733Digits, self.infoDigits, self.established, self.media) = (rfc4733Digits, infoDigits, established, media)
            let waiting = self.waiting, arrivals = self.arrivals
            let engine = world.engine
            let created = try SIPUserAgent(
                configuration: configuration, transport: world.sipNetwork.transportFactory, clock: world.clock, mediaPorts: world.mediaPorts(),
                logger: logger
            ) { event in
                guard let agent = box.withLock({ $0 }) else { return }
                switch event {
                case .incomingCall(let handle, _, _, _) where answerAtOnce:
                    agent.accept(handle)
                case .incomingCall(let handle, _, _, _):
                    agent.ring(handle)
                    waiting.withLock { $0.append(handle) }
                case .call(let handle, .established(let negotiated)):
                    established.withLock { $0 = negotiated }
                    guard let info = agent.callInfo(handle) else { return }
                    let audio = SIPCallMedia(
                        localHost: host, localPort: info.mediaPort, reserved: info.reservedMedia, audioDevice: nil, engine: engine
                    ) { streamEvent in
                        if case .telephoneEvent(let code, _) = streamEvent {
                            let digit = code < 10 ? Character("\(code)") : code == 10 ? "*" : code == 11 ? "#" : "?"
                            rfc4733Digits.withLock { $0.append(digit) }
                            arrivals.withLock { $0.append((digit, world.elapsedMilliseconds)) }
                        }
                    }
                    try? audio.apply(negotiated)
                    media.withLock { $0 = audio }
                case .call(_, .dtmfReceived(let digit, _)):
                    infoDigits.withLock { $0.append(digit) }
                    arrivals.withLock { $0.append((digit, world.elapsedMilliseconds)) }
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

        func stop(in world: VirtualCallWorld) {
            media.withLock { $0?.stop() }
            _ = agent.shutdown()
            world.settle()
        }
    }

    private func connectedCall(to peer: DigitRecordingPeer) throws -> (TestVoiceClient, Call, RecordingCallDelegate) {
        let alice = try TestVoiceClient("alice", world: world)
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: peer.address, delegate: delegate)
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.callbacks.contains(.connected) }, "\(delegate.callbacks)")
        XCTAssertTrue(PollingWait.until(timeout: 10) { peer.mediaRunning }, "the peer's media runs")
        return (alice, call, delegate)
    }

    func testDigitsGoAsRFC4733EventsWhenTelephoneEventWasNegotiated() throws {
        let peer = try DigitRecordingPeer(world: world, telephoneEvents: true)
        defer { peer.stop(in: world) }
        let (alice, call, _) = try connectedCall(to: peer)
        defer { alice.client.shutdown() }
        XCTAssertNotNil(peer.established.withLock { $0 }?.telephoneEventPayloadType)

        call.sendDigits("12x")  // not a DTMF string: ignored as a whole
        call.sendDigits("")
        call.sendDigits("1w9*#0")
        XCTAssertTrue(PollingWait.until(timeout: 10) { peer.rfc4733Digits.withLock { $0 } == "19*#0" },
                      peer.rfc4733Digits.withLock { $0 })
        XCTAssertEqual(peer.infoDigits.withLock { $0 }, "", "no INFO when RFC 4733 works")
        // A digit is a 100 ms tone and a 60 ms gap, 660 ms with the pause after it; the tone's
        // end is sent three times, which moves the next event's first packet up to 60 ms later.
        XCTAssertEqual(try XCTUnwrap(peer.gap(from: "1", to: "9")), 0.69, accuracy: 0.035, "w pauses 500 ms")
        call.disconnect()
        call.sendDigits("5")  // disconnected: no effect
        world.settle()
        XCTAssertEqual(peer.rfc4733Digits.withLock { $0 }, "19*#0")
    }

    func testDigitsFallBackToSIPInfoWhenThePeerHasNoTelephoneEvent() throws {
        let peer = try DigitRecordingPeer(world: world, telephoneEvents: false)
        defer { peer.stop(in: world) }
        let (alice, call, _) = try connectedCall(to: peer)
        defer { alice.client.shutdown() }
        XCTAssertNil(peer.established.withLock { $0 }?.telephoneEventPayloadType)

        call.sendDigits("#A")  // A–D are not accepted
        call.sendDigits("7w*3")
        XCTAssertTrue(PollingWait.until(timeout: 10) { peer.infoDigits.withLock { $0 } == "7*3" },
                      peer.infoDigits.withLock { $0 })
        XCTAssertEqual(peer.rfc4733Digits.withLock { $0 }, "")
        XCTAssertEqual(try XCTUnwrap(peer.gap(from: "7", to: "*")), 0.66, accuracy: 0.03, "w pauses 500 ms (see above)")
    }

    func testDigitsBeforeConnectedHaveNoEffect() throws {
        let peer = try DigitRecordingPeer(world: world, telephoneEvents: true, answerAtOnce: false)
        defer { peer.stop(in: world) }
        let alice = try TestVoiceClient("alice", world: world)
        defer { alice.client.shutdown() }
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: peer.address, delegate: delegate)
        call.sendDigits("123")  // connecting
        XCTAssertEqual(delegate.wait(for: 1), [.ringing])
        call.sendDigits("456")  // ringing
        world.settle()  // both were taken (and ignored) before the answer
        peer.answer()
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.callbacks.contains(.connected) }, "\(delegate.callbacks)")
        XCTAssertTrue(PollingWait.until(timeout: 10) { peer.mediaRunning }, "the peer's media runs")
        call.sendDigits("9")
        // Digits arrive in order, so had "123" been sent, "1" would come first.
        XCTAssertTrue(PollingWait.until(timeout: 10) { peer.rfc4733Digits.withLock { $0 }.contains("9") })
        XCTAssertEqual(peer.rfc4733Digits.withLock { $0 }, "9", "only the digit sent while connected arrives")
    }
}
