import XCTest
@testable import VoiceMedia
import VoiceSupport
import VoiceMediaTypes

final class FileAudioDeviceTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "file-audio-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func writeWAV(_ name: String, rate: Int = 48_000, channels: Int = 1, samples: [Int16]) throws -> String {
        let path = directory + "/" + name
        try WAVFile(sampleRate: rate, channels: channels, samples: samples).write(toFile: path)
        return path
    }

    func testFreeRunningCaptureDeliversTheWholeFile() throws {
        let tone = testTone(count: 48_000 + 123)
        let device = try FileAudioDevice(input: .wav(path: try writeWAV("in.wav", samples: tone)), pacing: .freeRunning())
        XCTAssertEqual(device.captureFormat, AudioFormat(sampleRate: 48_000, channels: 1, framesPerBuffer: 480))
        XCTAssertNil(device.renderFormat)
        let context = CollectingAudioContext()
        try device.startCapturing(context: context)
        XCTAssertTrue(context.wait { $0.captureCalls == 101 })
        device.stopCapturing()
        let captured = context.captured
        XCTAssertEqual(captured.count, 101 * 480)
        XCTAssertEqual(Array(captured.prefix(tone.count)), tone)
        XCTAssert(captured.dropFirst(tone.count).allSatisfy { $0 == 0 })
    }

    func testTickedCaptureIsPacedAndLoops() throws {
        let tone = testTone(count: 4_800, rate: 16_000)
        // A manual clock, ticked here: one 10 ms buffer per tick, no more, no less.
        let clock = SoftwareAudioClock(manualPeriod: .milliseconds(10), name: "test-file-clk")
        let device = try FileAudioDevice(
            input: .wav(path: try writeWAV("in16.wav", rate: 16_000, samples: tone)), endOfInput: .loop, pacing: .ticked(by: clock))
        XCTAssertEqual(device.captureFormat, AudioFormat(sampleRate: 16_000, channels: 1, framesPerBuffer: 160))
        let context = CollectingAudioContext()
        try device.startCapturing(context: context)
        for k in 0..<40 { clock.tick(at: .milliseconds(Int64(10 * k))) }
        device.stopCapturing()
        XCTAssertEqual(context.captureCalls, 40, "one buffer per tick")
        let captured = context.captured
        XCTAssertEqual(captured.count, 6_400)
        XCTAssertEqual(Array(captured.prefix(4_800)), tone)
        XCTAssertEqual(Array(captured.dropFirst(4_800)), Array(tone.prefix(1_600)), "the input loops")
    }

    func testRawInputAndStereo() throws {
        let samples: [Int16] = (0..<960).map { Int16($0) - 480 }
        let path = directory + "/in.raw"
        try Data(RIFFBytes.samples(samples)).write(to: URL(fileURLWithPath: path))
        let device = try FileAudioDevice(input: .raw(path: path, sampleRate: 8_000, channels: 2), pacing: .freeRunning())
        XCTAssertEqual(device.captureFormat, AudioFormat(sampleRate: 8_000, channels: 2, framesPerBuffer: 80))
        let context = CollectingAudioContext()
        try device.startCapturing(context: context)
        XCTAssertTrue(context.wait { $0.captureCalls == 6 })
        device.stopCapturing()
        XCTAssertEqual(context.captured, samples)

        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try FileAudioDevice(input: .raw(path: path, sampleRate: 8_000, channels: 1))) { error in
            XCTAssertEqual((error as? AudioDeviceError)?.kind, .fileError)
        }
    }

    func testRateMismatchAndBadInputsAreTypedErrors() throws {
        let path = try writeWAV("in44.wav", rate: 44_100, samples: [1, 2, 3])
        XCTAssertThrowsError(try FileAudioDevice(input: .wav(path: path), requiredCaptureSampleRate: 48_000)) { error in
            XCTAssertEqual((error as? AudioDeviceError)?.kind, .unsupportedFormat)
        }
        XCTAssertEqual(try FileAudioDevice(input: .wav(path: path)).captureFormat?.sampleRate, 44_100)
        XCTAssertThrowsError(try FileAudioDevice(input: .wav(path: directory + "/missing.wav"))) { error in
            XCTAssertEqual((error as? AudioDeviceError)?.kind, .fileError)
            XCTAssertEqual((error as? AudioDeviceError)?.code, ENOENT)
        }
        let garbage = directory + "/garbage.wav"
        try Data("RIFF....AVI LIST".utf8).write(to: URL(fileURLWithPath: garbage))
        XCTAssertThrowsError(try FileAudioDevice(input: .wav(path: garbage))) { error in
            XCTAssertEqual((error as? AudioDeviceError)?.kind, .fileError)
        }
        let renderOnly = try FileAudioDevice(input: nil, outputPath: directory + "/out.wav")
        XCTAssertThrowsError(try renderOnly.startCapturing(context: CollectingAudioContext())) { error in
            XCTAssertEqual((error as? AudioDeviceError)?.kind, .unsupportedFormat)
        }
    }

    func testFreeRunningRenderWritesFrameLimitIntoWAV() throws {
        let tone = testTone(count: 4_800)
        let out = directory + "/out.wav"
        let device = try FileAudioDevice(input: nil, outputPath: out, pacing: .freeRunning(renderFrameLimit: 4_800))
        let context = CollectingAudioContext(renderSource: tone)
        try device.startRendering(context: context)
        XCTAssertTrue(context.wait { $0.renderCalls == 10 })
        device.stopRendering()
        device.stopRendering()
        XCTAssertEqual(context.renderCalls, 10, "stops pulling at the frame limit")
        let wav = try WAVFile(contentsOfFile: out)
        XCTAssertEqual(wav.sampleRate, 48_000)
        XCTAssertEqual(wav.channels, 1)
        XCTAssertEqual(wav.samples, tone)
    }

    func testTickedRenderDisabledWritesSilenceAndNoCallbackAfterStop() throws {
        let out = directory + "/quiet.wav"
        let clock = SoftwareAudioClock(manualPeriod: .milliseconds(10), name: "test-file-clk")
        let device = try FileAudioDevice(input: nil, outputPath: out, pacing: .ticked(by: clock))
        device.isEnabled = false
        let context = CollectingAudioContext(renderSource: testTone(count: 48_000))
        try device.startRendering(context: context)
        for k in 0..<20 { clock.tick(at: .milliseconds(Int64(10 * k))) }
        device.stopRendering()
        context.close()
        for k in 20..<25 { clock.tick(at: .milliseconds(Int64(10 * k))) }
        XCTAssertEqual(context.callbacksAfterClose, 0)
        XCTAssertEqual(context.renderCalls, 20, "one pull per tick")
        let wav = try WAVFile(contentsOfFile: out)
        XCTAssertEqual(wav.samples.count, 20 * 480)
        XCTAssert(wav.samples.allSatisfy { $0 == 0 })
    }

    func testUnwritableOutputFailsAtStart() throws {
        let device = try FileAudioDevice(input: nil, outputPath: "/nonexistent-dir/out.wav")
        XCTAssertThrowsError(try device.startRendering(context: CollectingAudioContext())) { error in
            XCTAssertEqual((error as? AudioDeviceError)?.kind, .fileError)
        }
    }

    func testSecondRenderStartThrowsAndKeepsTheFile() throws {
        let out = directory + "/twice.wav"
        let tone = testTone(count: 960)
        let device = try FileAudioDevice(input: nil, outputPath: out, pacing: .freeRunning(renderFrameLimit: 960))
        let context = CollectingAudioContext(renderSource: tone)
        try device.startRendering(context: context)
        XCTAssertTrue(context.wait { $0.renderCalls == 2 })
        XCTAssertThrowsError(try device.startRendering(context: context)) { error in
            XCTAssertEqual((error as? AudioDeviceError)?.kind, .alreadyStarted)
        }
        device.stopRendering()
        XCTAssertEqual(try WAVFile(contentsOfFile: out).samples, tone)
    }
}
