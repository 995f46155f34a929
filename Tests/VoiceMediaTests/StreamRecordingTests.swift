import Foundation
import VoiceEmbedded
import VoiceSupport
import VoiceTestAudio
import VoiceTestKit
import XCTest

@testable import VoiceMedia

/// A running call recorded from its stream: what it sends on the left, what it plays on the
/// right, started and stopped mid-call, while an ALSA device (the `file` plugin, through the
/// real libasound) captures and plays for it.
final class StreamRecordingTests: XCTestCase {
    func testBothDirectionsLandInTheirChannelsWhileAnALSADeviceIsInUse() throws {
        let directory = NSTemporaryDirectory() + "stream-recording-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The ALSA device captures a 1,300 Hz tone from its infile for 5 s.
        let captured = TestSignals.multiTone([(1_300, 6_000)], seconds: 5)
        _ = FileManager.default.createFile(atPath: directory + "/in.raw", contents: Data(RIFFBytes.samples(captured)))
        let config = """
            </usr/share/alsa/alsa.conf>
            pcm.recording_in {
              type file
              slave.pcm null
              file "\(directory)/capture-copy.raw"
              infile "\(directory)/in.raw"
              format raw
            }
            pcm.recording_out {
              type file
              slave.pcm null
              file "\(directory)/out.raw"
              format raw
            }
            """
        _ = FileManager.default.createFile(atPath: directory + "/asound.conf", contents: Data(config.utf8))
        setenv("ALSA_CONFIG_PATH", directory + "/asound.conf", 1)
        ALSAAudioDevice.reloadConfiguration()
        defer {
            unsetenv("ALSA_CONFIG_PATH")
            ALSAAudioDevice.reloadConfiguration()
        }

        // A plays 500 Hz from a buffer until its device is switched to ALSA; B plays 900 Hz.
        let call = try LoopbackCall(
            signalA: TestSignals.multiTone([(500, 6_000)], seconds: 1), signalB: TestSignals.multiTone([(900, 6_000)], seconds: 1), loop: true)
        try call.start()
        defer { call.stop() }
        try call.a.switchAudioDevice(to: ALSAAudioDevice(capture: "recording_in", playback: "recording_out"))
        PollingWait.sleep(0.5)

        let path = directory + "/call.wav"
        let done = Locked<AudioRecordingSummary?>(nil)
        let recording = try AudioRecording(path: path, options: AudioRecordingOptions(path: path), twoDirections: true) { summary in
            done.withLock { $0 = summary }
        }
        call.a.setRecording(recording.tap)
        recording.start()
        PollingWait.sleep(2)
        call.a.setRecording(nil)
        recording.stop()
        XCTAssertTrue(PollingWait.until(timeout: 5) { done.withLock { $0 } != nil })
        let summary = try XCTUnwrap(done.withLock { $0 })
        XCTAssertNil(summary.error)
        XCTAssertEqual(summary.droppedSamples, 0)
        XCTAssertEqual(summary.seconds, 2, accuracy: 0.3)

        let file = try WAVFile(contentsOfFile: path)
        let left = Array(file.channel(0).dropFirst(4_800)), right = Array(file.channel(1).dropFirst(4_800))
        XCTAssertEqual(ToneAmplitude.of(1_300, in: left), 6_000, accuracy: 600, "left: what A sent, from the ALSA capture")
        XCTAssertLessThan(ToneAmplitude.of(900, in: left), 100)
        XCTAssertLessThan(ToneAmplitude.of(500, in: left), 100, "the buffer device it left is not recorded")
        XCTAssertGreaterThan(ToneAmplitude.of(900, in: right), 4_000, "right: what A played, B's tone through Opus")
        XCTAssertLessThan(ToneAmplitude.of(1_300, in: right), 100)
        // And the ALSA device played it too: recording takes nothing from the device.
        let played = try XCTUnwrap(FileManager.default.contents(atPath: directory + "/out.raw"))
        let playedSamples = played.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        XCTAssertGreaterThan(ToneAmplitude.of(900, in: playedSamples.suffix(48_000)), 4_000, "the device still played B")
    }
}
