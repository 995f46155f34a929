import Foundation
import VoiceEmbedded
import VoiceMedia
import VoiceRTP
import VoiceSupport
import VoiceTestAudio
import XCTest

@testable import VoiceCore

/// `Call.startRecording` on real calls over loopback: both directions in their channels,
/// started and stopped mid-call; a full disk ends the recording with a typed error while the
/// call goes on; and the refusals a caller can make sense of.
final class CallRecordingTests: XCTestCase {
    private var clients: [TestVoiceClient] = []
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "call-recording-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        for client in clients { client.client.shutdown() }
        clients = []
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    /// alice (500 Hz) calls bob (900 Hz); returns alice's connected call.
    private func connectedCall() throws -> (Call, RecordingCallDelegate) {
        let alice = try TestVoiceClient("alice", signal: TestSignals.multiTone([(500, 6_000)], seconds: 1))
        let bob = try TestVoiceClient("bob", signal: TestSignals.multiTone([(900, 6_000)], seconds: 1))
        clients += [alice, bob]
        let (call, delegate, _) = alice.call(acceptedBy: bob)
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected])
        return (call, delegate)
    }

    private func summary(_ box: Locked<AudioRecordingSummary?>) throws -> AudioRecordingSummary {
        XCTAssertTrue(PollingWait.until(timeout: 5) { box.withLock { $0 } != nil }, "the recording finished")
        return try XCTUnwrap(box.withLock { $0 })
    }

    func testBothDirectionsLandInTheirChannelsAndASecondRecordingIsRefused() throws {
        let (call, delegate) = try connectedCall()
        PollingWait.sleep(0.5)
        let path = directory + "/call.wav"
        let done = Locked<AudioRecordingSummary?>(nil)
        try call.startRecording(to: path) { summary in done.withLock { $0 = summary } }
        XCTAssertThrowsError(try call.startRecording(to: directory + "/again.wav")) { error in
            XCTAssertEqual((error as? AudioRecordingError)?.kind, .unavailable)
        }
        PollingWait.sleep(2)
        call.stopRecording()
        let result = try summary(done)
        XCTAssertNil(result.error)
        XCTAssertEqual(result.droppedSamples, 0)
        XCTAssertEqual(result.seconds, 2, accuracy: 0.4)
        let file = try WAVFile(contentsOfFile: path)
        let left = Array(file.channel(0).dropFirst(4_800)), right = Array(file.channel(1).dropFirst(4_800))
        XCTAssertEqual(ToneAmplitude.of(500, in: left), 6_000, accuracy: 300, "left: what alice sent")
        XCTAssertLessThan(ToneAmplitude.of(900, in: left), 100)
        XCTAssertGreaterThan(ToneAmplitude.of(900, in: right), 4_000, "right: what alice heard")
        XCTAssertLessThan(ToneAmplitude.of(500, in: right), 100)
        XCTAssertEqual(call.state, .connected)
        call.disconnect()
        XCTAssertEqual(delegate.waitForEnd().last, .disconnected(nil))
        XCTAssertThrowsError(try call.startRecording(to: directory + "/late.wav")) { error in
            XCTAssertEqual((error as? AudioRecordingError)?.kind, .unavailable, "the call has ended")
        }
    }

    func testAFullDiskEndsTheRecordingAndTheCallGoesOn() throws {
        let small = directory + "/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", small]) else {
            if ProcessInfo.processInfo.environment["CI"] == "true" { return XCTFail("mounting a tmpfs needs root") }
            throw XCTSkip("mounting a tmpfs needs root")
        }
        defer { _ = Self.run("/bin/umount", [small]) }
        let (call, delegate) = try connectedCall()
        let done = Locked<AudioRecordingSummary?>(nil)
        try call.startRecording(to: small + "/call.wav") { summary in done.withLock { $0 = summary } }
        let result = try summary(done)
        XCTAssertEqual(result.error?.kind, .writeFailed, "\(String(describing: result.error))")
        // The call did not notice: still connected, still carrying audio.
        let before = try XCTUnwrap(call.streamStatsNow()?.packetsReceived)
        PollingWait.sleep(1)
        XCTAssertEqual(call.state, .connected)
        XCTAssertGreaterThan(call.streamStatsNow()?.packetsReceived ?? 0, before + 30)
        XCTAssertEqual(delegate.callbacks, [.ringing, .connected])
        XCTAssertThrowsError(try call.startRecording(to: "/nonexistent-directory/call.wav")) { error in
            XCTAssertEqual((error as? AudioRecordingError)?.kind, .cannotCreateFile)
        }
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

extension Call {
    /// The stream's figures now (waits for the loop).
    func streamStatsNow() -> AudioStreamStats? {
        let box = Locked<AudioStreamStats?>(nil)
        let done = DispatchSemaphore(value: 0)
        streamStats { stats in
            box.withLock { $0 = stats }
            done.signal()
        }
        _ = done.wait(timeout: .now() + 2)
        return box.withLock { $0 }
    }
}
