import VoiceEmbedded
import Foundation
import Synchronization
import VoiceRTP
import VoiceSupport
import XCTest
import VoiceTestKit

@testable import VoiceMedia
import VoiceTestAudio
import VoiceMediaTypes

/// A running stream takes a renegotiation (a re-INVITE's new codec, payload types and keys)
/// without stopping, and follows its peer to a new address only on authenticated packets
/// (symmetric RTP, RFC 4961). In virtual time: the streams, and the relays and taps between
/// them, on an embedded engine's in-memory network.
final class AudioStreamRenegotiationTests: XCTestCase {
    let toneA = TestSignals.multiTone([(523, 6_000), (1_250, 3_000)], seconds: 2)
    let toneB = TestSignals.multiTone([(440, 6_000), (2_100, 2_000)], seconds: 2)

    /// The last `seconds` of what `device` recorded.
    private func tail(_ device: BufferAudioDevice, seconds: Double) -> [Int16] {
        Array(device.recordedSamples.suffix(Int(48_000 * seconds)))
    }

    /// Waits until `stream` has switched `count` times (its media thread adopts a change at its
    /// next tick), then for `seconds` more of audio.
    private func audio(after stream: AudioStream, renegotiations count: UInt64, seconds: Double) {
        XCTAssertTrue(PollingWait.until(timeout: 5) { stream.stats.renegotiations >= count }, "the stream switched")
        PollingWait.sleep(seconds)  // audio on the new settings: a window, not synchronisation
    }

    /// Both sides move from Opus to G.711 μ-law with new keys both ways, as a re-INVITE from a
    /// peer that moved to another device would: the audio goes on both ways in the new codec.
    func testACodecAndKeyChangeIsAppliedToTheRunningStream() throws {
        let call = try LoopbackCall.virtual(signalA: toneA, signalB: toneB, loop: true)
        try call.start()
        defer { call.stop() }
        PollingWait.sleep(1)  // the call is under way first
        let keyA = SRTPKeyMaterial.random(for: .aesCM128HmacSHA1_80)
        let keyB = SRTPKeyMaterial.random(for: .aesCM128HmacSHA1_80)
        try call.a.renegotiate(codec: .pcmu, payloadType: 0, ptime: 20, telephoneEventPayloadType: 101, encryption: .srtp(local: keyA, remote: keyB))
        try call.b.renegotiate(codec: .pcmu, payloadType: 0, ptime: 20, telephoneEventPayloadType: 101, encryption: .srtp(local: keyB, remote: keyA))
        audio(after: call.a, renegotiations: 1, seconds: 0)
        audio(after: call.b, renegotiations: 1, seconds: 1.5)
        for (stream, name) in [(call.a, "A"), (call.b, "B")] {
            let stats = stream.stats
            XCTAssertEqual(stats.codec, "PCMU", name)
            XCTAssertEqual(stats.payloadType, 0, name)
            XCTAssertEqual(stats.renegotiations, 1, name)
            XCTAssertEqual(stream.configuration.codec, .pcmu, name)
        }
        let atA = SpectralSimilarity(playedInALoop: toneB, in: tail(call.deviceA, seconds: 1))
        let atB = SpectralSimilarity(playedInALoop: toneA, in: tail(call.deviceB, seconds: 1))
        XCTAssertGreaterThan(atA.score, 0.75, "A hears B after the change: \(atA)")
        XCTAssertGreaterThan(atB.score, 0.75, "B hears A after the change: \(atB)")
    }

    /// A re-offer that drops RED stops our redundancy; one that brings it back (with a
    /// bandwidth limit now) restarts it within the limit's share.
    func testARenegotiationTurnsREDOffAndOnAgain() throws {
        let call = try LoopbackCall.virtual(signalA: toneA, signalB: toneB, loop: true) { c in
            c.redPayloadType = 63
            c.redSending = .always(depth: 2)
        }
        try call.start()
        defer { call.stop() }
        PollingWait.sleep(1)
        XCTAssertGreaterThan(call.a.stats.redPacketsSent, 30)
        XCTAssertEqual(call.a.stats.redDepth, 2)
        let encryption = call.a.configuration.encryption
        let codec = call.a.configuration.codec
        try call.a.renegotiate(codec: codec, payloadType: 111, ptime: 20, telephoneEventPayloadType: 101, encryption: encryption)
        audio(after: call.a, renegotiations: 1, seconds: 0.5)
        let off = call.a.stats.redPacketsSent
        PollingWait.sleep(1)
        XCTAssertEqual(call.a.stats.redPacketsSent, off, "no RED once the answer drops it")
        try call.a.renegotiate(
            codec: codec, payloadType: 111, ptime: 20, telephoneEventPayloadType: 101, encryption: encryption, redPayloadType: 63,
            peerBandwidthLimit: 64_000)
        audio(after: call.a, renegotiations: 2, seconds: 1)
        let on = call.a.stats
        XCTAssertGreaterThan(on.redPacketsSent, off + 30, "back on")
        XCTAssertEqual(on.redDepth, 1, "64 kbps leaves room for one copy")
        XCTAssertLessThanOrEqual(on.sendBitrate, 32_000)
        XCTAssertGreaterThan(call.b.stats.redPacketsReceived, 80)
        let atB = SpectralSimilarity(playedInALoop: toneA, in: tail(call.deviceB, seconds: 1))
        XCTAssertGreaterThan(atB.score, 0.75, "B hears A through it all: \(atB)")
    }

    /// Only the peer re-keys (its offer carries a new key, ours stays): our sender context goes
    /// on and the peer's new packets are taken.
    func testOnlyThePeersNewKeyReplacesOnlyTheInboundContext() throws {
        let keyB = SRTPKeyMaterial.random(for: .aesCM128HmacSHA1_80)
        let call = try LoopbackCall.virtual(signalA: toneA, signalB: toneB, loop: true)
        try call.start()
        defer { call.stop() }
        guard case .srtp(let oldA, _) = call.a.configuration.encryption else { return XCTFail("SRTP") }
        PollingWait.sleep(1)
        let sentBefore = call.a.stats.packetsSent
        try call.a.renegotiate(codec: call.a.configuration.codec, payloadType: 111, ptime: 20, telephoneEventPayloadType: 101, encryption: .srtp(local: oldA, remote: keyB))
        try call.b.renegotiate(codec: call.b.configuration.codec, payloadType: 111, ptime: 20, telephoneEventPayloadType: 101, encryption: .srtp(local: keyB, remote: oldA))
        audio(after: call.a, renegotiations: 1, seconds: 0)
        audio(after: call.b, renegotiations: 1, seconds: 1.5)
        XCTAssertGreaterThan(call.a.stats.packetsSent, sentBefore + 50)
        let atA = SpectralSimilarity(playedInALoop: toneB, in: tail(call.deviceA, seconds: 1))
        let atB = SpectralSimilarity(playedInALoop: toneA, in: tail(call.deviceB, seconds: 1))
        XCTAssertGreaterThan(atA.score, 0.75, "A takes B's new key: \(atA)")
        XCTAssertGreaterThan(atB.score, 0.75, "B still takes A's packets under A's old key: \(atB)")
    }

    /// A renegotiation that changes nothing the media thread runs is not posted; a bad one is
    /// refused and the stream runs on as it was.
    func testANoOpIsSkippedAndABadChangeLeavesTheStreamAsItWas() throws {
        let call = try LoopbackCall.virtual(signalA: toneA, signalB: toneB, loop: true)
        try call.start()
        defer { call.stop() }
        let before = call.a.configuration
        try call.a.renegotiate(
            codec: before.codec, payloadType: before.payloadType, ptime: before.ptime,
            telephoneEventPayloadType: before.telephoneEventPayloadType, encryption: before.encryption)
        XCTAssertThrowsError(
            try call.a.renegotiate(codec: .pcmu, payloadType: 0, ptime: 25, telephoneEventPayloadType: 101, encryption: before.encryption))
        XCTAssertThrowsError(
            try call.a.renegotiate(codec: .pcmu, payloadType: 101, ptime: 20, telephoneEventPayloadType: 101, encryption: before.encryption))
        PollingWait.sleep(1)
        XCTAssertEqual(call.a.stats.renegotiations, 0)
        XCTAssertEqual(call.a.configuration.codec, before.codec)
        let atB = SpectralSimilarity(playedInALoop: toneA, in: tail(call.deviceB, seconds: 0.6))
        XCTAssertGreaterThan(atB.score, 0.75, "\(atB)")
    }

    /// A peer behind a NAT: its SDP names an address nothing listens on, and its packets come
    /// from the NAT's (here a relay's) address. Its authenticated packets move our media there,
    /// and the audio flows both ways.
    func testAuthenticatedPacketsFromAnotherAddressMoveTheMediaThere() throws {
        let call = try LoopbackCall.virtual(signalA: toneA, signalB: toneB, loop: true)
        let nat = try VirtualRelay(engine: call.engine, a: call.a.localAddress, b: call.b.localAddress)
        defer { nat.stop() }
        // Nothing listens there: A's media gets through only once it follows B's packets.
        let unreachable = try SocketAddress(host: "10.0.0.99", port: 9)
        try call.a.start(remote: unreachable, audioDevice: call.deviceA)
        try call.b.start(remote: nat.addressForB, audioDevice: call.deviceB)
        defer { call.stop() }
        XCTAssertTrue(PollingWait.until(timeout: 5) { call.a.stats.remoteAddressSwitches >= 1 }, "A followed B's packets")
        PollingWait.sleep(1.5)  // audio through the relay: a window, not synchronisation
        let stats = call.a.stats
        XCTAssertEqual(stats.remoteAddressSwitches, 1, "once, not per packet")
        XCTAssertEqual(stats.remoteRTPAddress, nat.addressForA)
        let atB = SpectralSimilarity(playedInALoop: toneA, in: tail(call.deviceB, seconds: 1))
        XCTAssertGreaterThan(atB.score, 0.75, "B hears A through the NAT: \(atB)")
    }

    /// With symmetric RTP off, media goes where signaling says, whatever arrives.
    func testWithSymmetricRTPOffAuthenticatedPacketsDoNotMoveTheStream() throws {
        let call = try LoopbackCall.virtual(signalA: toneA, signalB: toneB, loop: true) { $0.symmetricRTP = false }
        let relay = try VirtualRelay(engine: call.engine, a: call.a.localAddress, b: call.b.localAddress)
        defer { relay.stop() }
        try call.a.start(remote: call.b.localAddress, audioDevice: call.deviceA)
        try call.b.start(remote: relay.addressForB, audioDevice: call.deviceB)
        defer { call.stop() }
        XCTAssertFalse(call.a.followsPeerAddress)
        XCTAssertTrue(PollingWait.until(timeout: 5) { call.a.stats.packetsReceived > 50 }, "A hears B through the relay")
        XCTAssertEqual(call.a.stats.remoteAddressSwitches, 0)
        XCTAssertEqual(call.a.stats.remoteRTPAddress, call.b.localAddress)
    }

    /// Plain RTP proves nothing about its sender: it never moves the stream.
    func testPlainRTPFromAnotherAddressNeverMovesTheStream() throws {
        let call = try LoopbackCall.virtual(encrypted: false, signalA: toneA, signalB: toneB, loop: true)
        let relay = try VirtualRelay(engine: call.engine, a: call.a.localAddress, b: call.b.localAddress)
        defer { relay.stop() }
        try call.a.start(remote: call.b.localAddress, audioDevice: call.deviceA)
        try call.b.start(remote: relay.addressForB, audioDevice: call.deviceB)
        defer { call.stop() }
        XCTAssertTrue(PollingWait.until(timeout: 5) { call.a.stats.packetsReceived > 50 }, "A hears B through the relay")
        XCTAssertEqual(call.a.stats.remoteAddressSwitches, 0)
        XCTAssertEqual(call.a.stats.remoteRTPAddress, call.b.localAddress)
    }

    /// Forged SRTP from another address (the right SSRC and sequence numbers, but no key) and
    /// copies of the peer's genuine packets replayed from another address: neither moves the
    /// stream; the forgeries fail authentication, the copies the replay check, and the call's
    /// audio is untouched.
    func testForgedAndReplayedPacketsFromElsewhereNeverMoveTheStream() throws {
        let call = try LoopbackCall.virtual(signalA: toneA, signalB: toneB, loop: true)
        let tap = try VirtualRelay(
            engine: call.engine, a: call.a.localAddress, b: call.b.localAddress, onePort: true, replayDelay: .milliseconds(40))
        defer { tap.stop() }
        // The media goes through the tap both ways (the path the signaling named), and the tap
        // replays each of B's packets to A 40 ms later from another port.
        try call.a.start(remote: tap.addressForA, audioDevice: call.deviceA)
        try call.b.start(remote: tap.addressForB, audioDevice: call.deviceB)
        defer { call.stop() }
        XCTAssertTrue(PollingWait.until(timeout: 5) { call.a.stats.srtpReplayFailures > 20 }, "the copies arrive and are refused")
        let refusedBefore = call.a.stats.srtpAuthFailures + call.a.stats.srtpReplayFailures
        let forger = try XCTUnwrap(call.engine.network).bind(SocketAddress(host: "10.0.0.66", port: 0))
        let ssrc = call.b.configuration.ssrc
        var rng = SplitMix64(seed: 4961)
        for i in 0..<300 {
            var packet = (try? RTPPacket(
                header: RTPHeader(payloadType: 111, sequenceNumber: UInt16(truncatingIfNeeded: 40_000 + i), timestamp: UInt32(i * 960), ssrc: ssrc),
                payload: (0..<60).map { _ in UInt8.random(in: 0...255, using: &rng) }).serialized()) ?? []
            packet += (0..<10).map { _ in UInt8.random(in: 0...255, using: &rng) }  // a made-up auth tag
            _ = packet.withUnsafeBytes { forger.send($0, to: call.a.localAddress) }
            if i % 10 == 0 { PollingWait.sleep(0.01) }
        }
        // Each forgery fails authentication, or the replay check first when its made-up sequence
        // number lies behind the real ones (libsrtp checks the index before the tag).
        XCTAssertTrue(
            PollingWait.until(timeout: 5) { call.a.stats.srtpAuthFailures + call.a.stats.srtpReplayFailures >= refusedBefore + 300 },
            "every forgery is refused")
        let stats = call.a.stats
        XCTAssertEqual(stats.remoteAddressSwitches, 0, "neither forgeries nor copies move the stream")
        XCTAssertEqual(stats.remoteRTPAddress, tap.addressForA)
        let atA = SpectralSimilarity(playedInALoop: toneB, in: tail(call.deviceA, seconds: 1))
        XCTAssertGreaterThan(atA.score, 0.75, "A still hears B: \(atA)")
        let atB = SpectralSimilarity(playedInALoop: toneA, in: tail(call.deviceB, seconds: 1))
        XCTAssertGreaterThan(atB.score, 0.75, "B still hears A: \(atB)")
    }
}

/// Relays media between streams `a` and `b` on an embedded engine's in-memory network, in
/// virtual time: B talks to ``addressForB`` and hears A from it, A to ``addressForA`` (a NAT or
/// media relay between them), or one port for both (`onePort`, a tap on the path). With a
/// `replayDelay` it also replays each of B's datagrams to A that much later from a third port:
/// an attacker on the path replaying genuine packets from elsewhere. While it runs, the test's
/// waits move the engine 5 ms at a time and relay after each step.
private final class VirtualRelay: @unchecked Sendable {
    // @unchecked: used from the test's thread only (its driver runs there).
    let addressForA: SocketAddress
    let addressForB: SocketAddress
    private let facingA: any MediaTransport
    private let facingB: any MediaTransport
    private let replayer: (any MediaTransport)?
    private let replayDelay: MediaTime
    private let engine: MediaEngine
    private let a: SocketAddress, b: SocketAddress
    private var queued: [(due: MediaTime, bytes: [UInt8])] = []
    private var buffer = [UInt8](repeating: 0, count: 2_048)
    private var driver: Int?

    init(engine: MediaEngine, a: SocketAddress, b: SocketAddress, onePort: Bool = false, replayDelay: MediaTime? = nil) throws {
        guard let network = engine.network else { throw SocketError(operation: "relay on a threaded engine", errno: EINVAL) }
        (self.engine, self.a, self.b) = (engine, a, b)
        facingA = try network.bind(SocketAddress(host: "10.0.0.9", port: 0))
        facingB = onePort ? facingA : try network.bind(SocketAddress(host: "10.0.0.9", port: 0))
        replayer = replayDelay == nil ? nil : try network.bind(SocketAddress(host: "10.0.0.10", port: 0))
        self.replayDelay = replayDelay ?? .zero
        (addressForA, addressForB) = (facingA.localAddress, facingB.localAddress)
        driver = PollingWait.installDriver { [weak self] seconds in self?.run(seconds: seconds) }
    }

    deinit { stop() }

    /// Moves the engine on by `seconds`, relaying after every 5 ms.
    private func run(seconds: TimeInterval) {
        var left = Int64(seconds * 1_000_000_000)
        repeat {
            let step = min(left, 5_000_000)
            engine.advance(by: MediaTime(nanoseconds: step))
            relay()
            left -= step
        } while left > 0
    }

    private func relay() {
        let now = engine.clock.now()
        drain(facingA, now: now)
        if facingB !== facingA { drain(facingB, now: now) }
        while let first = queued.first, first.due <= now {
            _ = first.bytes.withUnsafeBytes { replayer?.send($0, to: a) }
            queued.removeFirst()
        }
    }

    private func drain(_ transport: any MediaTransport, now: MediaTime) {
        var source = a
        while let datagram = buffer.withUnsafeMutableBytes({ transport.receive(into: $0, from: &source, wallClockOffset: 0) }) {
            let bytes = Array(buffer[0..<datagram.length])
            if source == b {
                _ = bytes.withUnsafeBytes { facingA.send($0, to: a) }
                if replayer != nil { queued.append((now + replayDelay, bytes)) }
            } else if source == a {
                _ = bytes.withUnsafeBytes { facingB.send($0, to: b) }
            }
        }
    }

    func stop() {
        guard let id = driver else { return }
        driver = nil
        PollingWait.removeDriver(id)
        facingA.close()
        facingB.close()
        replayer?.close()
    }
}
