import VoiceEmbedded
import Dispatch
import Foundation
import VoiceTestKit
import VoiceRTP
import VoiceSupport
import XCTest

@testable import VoiceCore
@testable import VoiceMedia
@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceTestAudio
import VoiceMediaTypes

/// Seed 000's sequence, in virtual time over TCP on the in-memory network: a signaling and a
/// media interruption of one call reconnect independently, each with its own
/// isReconnecting/didReconnect pair and Insights events.
final class CallReconnectTests: VirtualTimeTestCase {
    private var fixture: ReconnectTestCall?

    override func tearDown() {
        fixture?.shutdown()
        fixture = nil
        super.tearDown()
    }

    func testSignalingThenMediaInterruptionGiveTwoReconnectingPairs() throws {
        let f = try ReconnectTestCall(
            transport: .tcp,
            reconnection: CallReconnectionPolicy(
                mediaSilenceThreshold: .milliseconds(1_000), mediaReconnectTimeout: .milliseconds(20_000),
                signalingReconnectTimeout: .milliseconds(10_000)))
        fixture = f

        try f.alice.client.agent.transport.closeConnection(to: f.bob.client.localEndpoint).wait()
        XCTAssertEqual(f.callerDelegate.wait(for: 4), [.ringing, .connected, .reconnecting(.signalingConnectionDisconnected), .reconnected])

        let outage = try MediaOutage(of: f.accepted)
        outage.begin()
        XCTAssertEqual(f.callerDelegate.wait(for: 5).last, .reconnecting(.mediaConnectionError))
        XCTAssertEqual(f.call.state, .reconnecting)
        outage.end()
        XCTAssertEqual(
            f.callerDelegate.wait(for: 6),
            [
                .ringing, .connected, .reconnecting(.signalingConnectionDisconnected), .reconnected,
                .reconnecting(.mediaConnectionError), .reconnected,
            ], "media after the outage: \(mediaDiagnosis(f))")
        XCTAssertEqual(f.call.state, .connected)
        XCTAssertEqual(
            f.alice.reconnectInsights,
            ["reconnecting 53001", "reconnected signaling", "reconnecting 53405", "reconnected media"])
        // Bob lost only the connection alice had opened to him, and her re-INVITE came at once;
        // his media kept arriving: no callback at his end.
        XCTAssertEqual(f.calleeDelegate.callbacks, [.connected], "bob's signaling and media were never lost to him")

        f.call.disconnect()
        XCTAssertEqual(f.calleeDelegate.waitForEnd().last, .disconnected(nil))
    }
}

/// What each side's stream saw, for a failure message (seen once in CI: alice never heard bob
/// again after the outage ended).
func mediaDiagnosis(_ f: ReconnectTestCall) -> String {
    func describe(_ call: Call) -> String {
        guard let stats = try? onCallLoop(call, { $0.media?.stream?.stats }) else { return "no stream" }
        return "sent \(stats.packetsSent), received \(stats.packetsReceived) (last at \(stats.lastPacketReceived.map { "\($0)" } ?? "never")), "
            + "remote \(stats.remoteRTPAddress.map { "\($0)" } ?? "none") after \(stats.remoteAddressSwitches) switches, "
            + "SRTP auth failures \(stats.srtpAuthFailures), replays \(stats.srtpReplayFailures), "
            + "malformed \(stats.malformedPackets), foreign \(stats.foreignSourcePackets), unhandled \(stats.unhandledDatagrams), "
            + "ssrc \(stats.ssrc) remote ssrc \(stats.remoteSSRC), seq? lost \(stats.packetsLost)"
    }
    return "alice: \(describe(f.call)); bob: \(describe(f.accepted))"
}

// MARK: - Fixture

/// A connected call between two loopback clients with the given reconnection thresholds: alice
/// placed it, bob accepted it. Both play a speech-like signal, so media flows both ways.
final class ReconnectTestCall {
    let alice: TestVoiceClient
    let bob: TestVoiceClient
    /// Alice's call.
    let call: Call
    /// Bob's call.
    let accepted: Call
    let callerDelegate = RecordingCallDelegate()
    let calleeDelegate = RecordingCallDelegate()

    struct NotConnected: Error, CustomStringConvertible {
        var description: String
    }

    /// Places the call from `caller` (a new client when nil) to a new client.
    /// In `world` (virtual time) when there is one, else on loopback in real time.
    init(
        transport: SIPTransportProtocol = .udp, reconnection: CallReconnectionPolicy, caller: TestVoiceClient? = nil,
        security: MediaSecurity = .sdes, world: VirtualCallWorld? = VirtualCallWorld.current
    ) throws {
        let signal = TestSignals.speechLike(seconds: 2)
        // SDES by default: ``MediaOutage`` diverts a stream by its signaled remote address, which an ICE
        // path does not follow (the media path's own liveness is ``WebRTCMediaPathTests``').
        alice = try caller ?? TestVoiceClient("alice", signal: signal, transport: transport, world: world) {
            $0.reconnection = reconnection
            $0.mediaSecurity = security
        }
        bob = try TestVoiceClient("bob", signal: signal, transport: transport, world: world) {
            $0.reconnection = reconnection
            $0.mediaSecurity = security
        }
        let notifications = bob.listen()
        let acceptedBox = LockedBox<Call?>(nil)
        let calleeDelegate = self.calleeDelegate
        notifications.onInvite.withLock {
            $0 = { invite in
                acceptedBox.value = invite.accept(
                    options: AcceptOptions(callInvite: invite) { $0.delegateQueue = calleeDelegate.queue }, delegate: calleeDelegate)
            }
        }
        let callerDelegate = self.callerDelegate
        // A second call from the same client needs an audio device of its own.
        let device = caller.map { _ in BufferAudioDevice(captureSamples: signal, loop: true, pacing: world?.pacing ?? .realTime) }
        call = alice.client.connect(
            options: ConnectOptions(accessToken: CallTestTokens.token(alice.client.configuration.identity)) { [bob] builder in
                builder.params = ["To": bob.address]
                builder.delegateQueue = callerDelegate.queue
                if let device { builder.audioDevice = device }
            },
            delegate: callerDelegate)
        let callerSaw = callerDelegate.wait(for: 2)
        let calleeSaw = calleeDelegate.wait(for: 1)
        guard callerSaw == [.ringing, .connected], calleeSaw == [.connected], let accepted = acceptedBox.value else {
            alice.client.shutdown()
            bob.client.shutdown()
            throw NotConnected(description: "caller saw \(callerSaw), callee saw \(calleeSaw)")
        }
        self.accepted = accepted
    }

    func shutdown() {
        alice.client.shutdown()
        bob.client.shutdown()
    }
}

/// Runs `body` with `call`'s engine room on its event loop.
func onCallLoop<T: Sendable>(_ call: Call, _ body: @escaping @Sendable (CallCore) -> T) throws -> T {
    let core = try XCTUnwrap(call.core.withLock { $0 }, "the call has ended")
    if core.eventLoop.inEventLoop { return body(core) }  // virtual time: the test's thread is the loop's
    return try core.eventLoop.submit { body(core) }.wait()
}

extension TestVoiceClient {
    /// The `connection` reconnecting/reconnected Insights events so far: "reconnecting <code>" or
    /// "reconnected <cause>".
    var reconnectInsights: [String] {
        func text(_ value: InsightsValue?) -> String {
            switch value {
            case .string(let string)?: string
            case let value?: value.description
            case nil: "?"
            }
        }
        return insights.events(in: .connection).compactMap { event in
            switch event.name {
            case "reconnecting": "reconnecting \(text(event.payload["code"]))"
            case "reconnected": "reconnected \(text(event.payload["cause"]))"
            default: nil
            }
        }
    }
}

/// Really stops a call's outgoing media: ``begin()`` points its stream's RTP and RTCP at a
/// port nobody reads (a local socket, or a port of the virtual world's media network), ``end()``
/// points them back at the peer.
final class MediaOutage {
    private let stream: AudioStream
    private let original: RemoteEndpoints
    private let sink: any MediaTransport

    init(of call: Call, world: VirtualCallWorld? = VirtualCallWorld.current) throws {
        let stream = try onCallLoop(call) { $0.media?.stream }
        self.stream = try XCTUnwrap(stream, "no media stream")
        original = try XCTUnwrap(self.stream.control.remote.withLock { $0 }, "the stream has no remote")
        if let world {
            sink = try world.mediaNetwork.bind(SocketAddress(host: "127.0.0.250", port: 0))
        } else {
            sink = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        }
    }

    deinit { sink.close() }

    /// The stream sends to the sink, and does not follow the peer's packets back (symmetric RTP
    /// would undo the outage at once).
    func begin() {
        stream.followsPeerAddress = false
        stream.updateRemote(sink.localAddress, rtcp: sink.localAddress)
    }

    func end() {
        stream.updateRemote(original.rtp, rtcp: original.rtcp)
        stream.followsPeerAddress = true
    }

    /// Whether packets meant for the peer arrived at the sink (the outage is real).
    func hasDiverted(timeout: TimeInterval = 5) -> Bool {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2_048, alignment: 16)
        defer { buffer.deallocate() }
        var source = SocketAddress.unspecified
        return PollingWait.until(timeout: timeout) { sink.receive(into: buffer, from: &source, wallClockOffset: 0) != nil }
    }
}
