import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Echo cancellation in a whole call, in virtual time: alice's device is a loudspeaker and a
/// microphone in a simulated room (``RoomAudioDevice``), so bob's voice comes back to him
/// through it unless alice's processing removes it. Options change mid-call through
/// ``Call/audioProcessing`` and show in the stats.
final class CallEchoCancellationTests: VirtualTimeTestCase {
    private let bobVoice = RoomSignals.mix(RoomSignals.speech(TestSignals.speechLike(seconds: 6, seed: 1), atActiveLevel: -26))
    /// Alice talks in tones (300, 900 and 2,100 Hz in 200 ms bursts, 100 ms apart: not stationary,
    /// so noise suppression keeps them), told apart from bob's voice by their spectrum.
    static let aliceVoice: [Int16] = {
        let tones = TestSignals.multiTone([(300, 6_000), (900, 4_000), (2_100, 2_500)], seconds: 3)
        return tones.indices.map { i in (i / 4_800) % 3 == 2 ? 0 : tones[i] }
    }()
    private var aliceVoice: [Int16] { Self.aliceVoice }
    private let withoutAEC = AudioProcessingOptions(echoCancellation: false)

    private func callThroughARoom(near: [Int16] = []) throws -> (ConnectedCallPair, RoomAudioDevice) {
        let pair = try ConnectedCallPair(aliceSignal: [], bobSignal: bobVoice, world: world)
        try pair.connect()
        let room = RoomAudioDevice(near: near, pacing: world.pacing)
        let caller = try XCTUnwrap(pair.caller)
        let switched = expectation(description: "switched")
        caller.switchAudioDevice(to: room) { error in
            XCTAssertNil(error)
            switched.fulfill()
        }
        PollingWait.sleep(0.5)
        wait(for: [switched], timeout: 5)
        XCTAssertEqual(caller.audioProcessing, .all, "a microphone and a speaker: everything on by default")
        return (pair, room)
    }

    private func bobHears(_ pair: ConnectedCallPair, seconds: Double) -> [Int16] {
        pair.bob.device.clearRecording()
        PollingWait.sleep(seconds)
        return pair.bob.device.recordedSamples
    }

    func testTheFarPartyHearsItsOwnVoiceAtLeast25dBLessWithEchoCancellation() throws {
        let (pair, room) = try callThroughARoom()
        defer { pair.close() }
        let caller = try XCTUnwrap(pair.caller)
        caller.audioProcessing = withoutAEC
        PollingWait.sleep(1)
        let echoed = bobHears(pair, seconds: 6)
        XCTAssertGreaterThan(RoomSignals.level(echoed.map(Double.init)), -35, "bob hears his own voice back")
        let report = try XCTUnwrap(try ConnectedCallPair.onCore(caller) { $0?.statsReport() })
        XCTAssertFalse(report.audioProcessing.echoCancellation)
        XCTAssertTrue(report.audioProcessing.noiseSuppression)
        XCTAssertNil(report.audioProcessing.echoReturnLossEnhancement)

        caller.audioProcessing = .all
        PollingWait.sleep(3)  // the canceller converges
        let cancelled = bobHears(pair, seconds: 6)
        let off = RoomSignals.level(echoed.map(Double.init)), on = RoomSignals.level(cancelled.map(Double.init))
        print("bob hears his own voice at \(String(format: "%.1f", off)) dBFS without echo cancellation, \(String(format: "%.1f", on)) dBFS with it")
        XCTAssertGreaterThanOrEqual(off - on, 25, "echo cancellation takes \(off - on) dB off bob's own voice")
        let stats = try XCTUnwrap(try ConnectedCallPair.onCore(caller) { $0?.statsReport() })
        XCTAssertEqual(stats.audioProcessing.echoCancellation, true)
        XCTAssertNotNil(stats.audioProcessing.echoReturnLossEnhancement, "\(stats.audioProcessing)")
        XCTAssertNotNil(stats.audioProcessing.echoReturnLoss)
        XCTAssertNil(stats.audioProcessing.fallback)
        XCTAssertFalse(room.playedSamples.isEmpty)
    }

    func testTheNearEndTalkerStillGetsThrough() throws {
        let (pair, _) = try callThroughARoom(near: aliceVoice)
        defer { pair.close() }
        PollingWait.sleep(3)
        let heard = bobHears(pair, seconds: 5)
        let similarity = SpectralSimilarity(playedInALoop: aliceVoice, in: heard)
        let own = SpectralSimilarity(playedInALoop: bobVoice, in: heard)
        let level = RoomSignals.level(heard.map(Double.init))
        print("bob hears alice: \(similarity); his own voice: \(own); level \(level)")
        XCTAssertGreaterThan(similarity.score, 0.8, "bob hears alice over his own echo: \(similarity)")
        XCTAssertLessThan(own.score, similarity.score - 0.2, "and not his own voice: \(own)")
        XCTAssertGreaterThan(level, -35, "at about the level she talks at")
    }

    func testAFileDeviceIsLeftUntouched() throws {
        let pair = try ConnectedCallPair(world: world)
        defer { pair.close() }
        try pair.connect()
        let caller = try XCTUnwrap(pair.caller)
        XCTAssertEqual(caller.audioProcessing, .none, "buffer devices: the signal untouched")
        let untouched = try XCTUnwrap(try ConnectedCallPair.onCore(caller) { $0?.statsReport() })
        XCTAssertEqual(untouched.audioProcessing, CallAudioProcessingStats())
        let heard = bobHears(pair, seconds: 2)
        XCTAssertGreaterThan(SpectralSimilarity(playedInALoop: ConnectedCallPair.tone(440), in: heard).score, 0.9)
    }

    func testACaptureOnlyDeviceRunsWithoutEchoCancellationAndTheCallGoesOn() throws {
        let alice = try TestVoiceClient("alice", world: world)
        let bob = try TestVoiceClient("bob", world: world)
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        let notifications = bob.listen()
        let calleeDelegate = RecordingCallDelegate(), delegate = RecordingCallDelegate()
        world.watch(delegate.queue)
        world.watch(calleeDelegate.queue)
        notifications.onInvite.withLock {
            $0 = { invite in
                _ = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = calleeDelegate.queue }, delegate: calleeDelegate)
            }
        }
        let tone = ConnectedCallPair.tone(440)
        let microphone = MicrophoneOnlyDevice(inner: BufferAudioDevice(captureSamples: tone, loop: true, pacing: world.pacing))
        let call = alice.client.connect(
            options: ConnectOptions(accessToken: CallTestTokens.token("alice")) { builder in
                builder.params = ["To": bob.address]
                builder.delegateQueue = delegate.queue
                builder.audioDevice = microphone
                builder.audioProcessing = .all
            },
            delegate: delegate)
        defer { call.disconnect() }
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected], "processing that cannot run never fails the call")
        PollingWait.sleep(1)
        let report = try XCTUnwrap(try ConnectedCallPair.onCore(call) { $0?.statsReport() })
        XCTAssertEqual(report.audioProcessing.fallback, .noPlaybackSide)
        XCTAssertFalse(report.audioProcessing.echoCancellation, "no echo reference")
        XCTAssertTrue(report.audioProcessing.noiseSuppression, "the other stages run")
        bob.device.clearRecording()
        PollingWait.sleep(2)
        XCTAssertGreaterThan(SpectralSimilarity(playedInALoop: tone, in: bob.device.recordedSamples).score, 0.9, "alice's audio flows")
    }
}

/// A microphone with no speaker: captures from a buffer device, cannot render.
private final class MicrophoneOnlyDevice: AudioDevice, Sendable {
    let inner: BufferAudioDevice
    init(inner: BufferAudioDevice) { self.inner = inner }
    var captureFormat: AudioFormat? { inner.captureFormat }
    var renderFormat: AudioFormat? { nil }
    var isEnabled: Bool {
        get { inner.isEnabled }
        set { inner.isEnabled = newValue }
    }
    func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) { try inner.startCapturing(context: context) }
    func stopCapturing() { inner.stopCapturing() }
    func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {}
    func stopRendering() {}
}
