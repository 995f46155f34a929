import VoiceEmbedded
import Dispatch
import Foundation
import VoiceMedia
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Alice calls bob. Alice's audio runs on the device under test; bob's on a buffer device that
/// loops ``bobSignal`` and records what bob plays.
final class InterruptionCall {
    /// Two tones each side sends, in one-second loops, told apart by correlation.
    static let aliceSignal = TestSignals.multiTone([(440, 5_000), (1_250, 3_000)], seconds: 1)
    static let bobSignal = TestSignals.multiTone([(660, 5_000), (1_500, 3_000)], seconds: 1)

    let alice: TestVoiceClient
    let bob: TestVoiceClient
    let delegate = RecordingCallDelegate()
    let calleeDelegate = RecordingCallDelegate()
    private(set) var caller: Call?
    private(set) var callee: Call?

    /// Both clients in `world` (virtual time), or on loopback in real time.
    init(world: VirtualCallWorld? = VirtualCallWorld.current) throws {
        alice = try TestVoiceClient("alice", signal: Self.aliceSignal, world: world)
        bob = try TestVoiceClient("bob", signal: Self.bobSignal, world: world)
    }

    func shutdown() {
        caller?.disconnect()
        delegate.waitForEnd(timeout: 5)
        alice.client.shutdown()
        bob.client.shutdown()
    }

    /// Places the call on `device` and waits for `expected` (alice's callbacks) and bob's `connected`.
    func connect(device: any AudioDevice, expecting expected: [SeenCallback] = [.ringing, .connected], file: StaticString = #filePath, line: UInt = #line) throws {
        let notifications = bob.listen()
        let calleeDelegate = self.calleeDelegate
        let accepted = LockedBox<Call?>(nil)
        notifications.onInvite.withLock {
            $0 = { invite in
                accepted.value = invite.accept(
                    options: AcceptOptions(callInvite: invite) { $0.delegateQueue = calleeDelegate.queue }, delegate: calleeDelegate)
            }
        }
        let delegate = self.delegate
        caller = alice.client.connect(
            options: ConnectOptions(accessToken: CallTestTokens.token("alice")) { builder in
                builder.params = ["To": bob.address]
                builder.delegateQueue = delegate.queue
                builder.audioDevice = device
                // The steady tones these tests recognise are what noise suppression removes: the
                // interruption tests hear the device unprocessed (CallEchoCancellation* test processing).
                builder.audioProcessing = AudioProcessingOptions.none
            },
            delegate: delegate)
        XCTAssertEqual(delegate.wait(for: expected.count), expected, file: file, line: line)
        XCTAssertEqual(calleeDelegate.wait(for: 1), [.connected], file: file, line: line)
        callee = try XCTUnwrap(accepted.value, file: file, line: line)
    }

    /// How well the next `seconds` of what bob plays match alice's signal.
    func bobHearsAlice(seconds: Double = 2, signal: [Int16] = InterruptionCall.aliceSignal) -> SpectralSimilarity {
        bob.device.clearRecording()
        let count = Int(seconds * 48_000)
        _ = PollingWait.until(timeout: seconds + 10) { self.bob.device.recordedSamples.count >= count }
        return SpectralSimilarity(playedInALoop: signal, in: Array(bob.device.recordedSamples.prefix(count)))
    }

    /// The loudest sample bob plays over the next `seconds`.
    func bobPeak(seconds: Double = 1) -> Int {
        bob.device.clearRecording()
        let count = Int(seconds * 48_000)
        _ = PollingWait.until(timeout: seconds + 10) { self.bob.device.recordedSamples.count >= count }
        return bob.device.recordedSamples.prefix(count).map { abs(Int($0)) }.max() ?? 0
    }

    /// How well the next `seconds` of `samples()` (a growing recording) match bob's signal.
    static func hearsBob(in samples: () -> [Int16], seconds: Double = 2) -> SpectralSimilarity {
        let start = samples().count
        let count = Int(seconds * 48_000)
        _ = PollingWait.until(timeout: seconds + 10) { samples().count >= start + count }
        let all = samples()
        return SpectralSimilarity(playedInALoop: bobSignal, in: Array(all[min(start, all.count)..<min(start + count, all.count)]))
    }

    /// A call's stats, synchronously.
    static func stats(_ call: Call?) -> CallStatsReport? {
        guard let call else { return nil }
        let report = Locked<(done: Bool, stats: CallStatsReport?)>((false, nil))
        call.getStats { stats in report.withLock { $0 = (true, stats) } }
        _ = PollingWait.until(timeout: 5) { report.withLock { $0.done } }
        return report.withLock { $0.stats }
    }

    /// Packets bob has received so far.
    var bobPacketsReceived: UInt64 { Self.stats(callee)?.remoteAudioTrack?.packetsReceived ?? 0 }

    /// The Insights events of alice's `audio-interruption` group, by name.
    var interruptionInsights: [String] { alice.insights.events(in: .audioInterruption).map(\.name) }
}

/// Whether a test that needs PulseAudio runs: skipped locally without it, a failure under CI.
func requirePulseAudio() throws {
    if PulseAudioServer.isInstalled { return }
    switch SIPPeerRequirement.check("pulseaudio", isInstalled: { _ in false }) {
    case .available: return
    case .skip(let message): throw XCTSkip(message)
    case .fail(let message): XCTFail(message); throw XCTSkip(message)
    }
}

extension Array where Element == Int16 {
    /// `self` repeated to `seconds` of 48 kHz audio.
    func looped(seconds: Int) -> [Int16] {
        Array([[Int16]](repeating: self, count: Swift.max(1, seconds * 48_000 / Swift.max(1, count))).joined())
    }
}
