import XCTest
@testable import VoiceMedia
import VoiceSupport
import VoiceMediaTypes

/// ALSA tests run the real libasound: `null` and the `file` plugin, configured through a
/// temporary `ALSA_CONFIG_PATH` set before libasound reads its configuration.
final class ALSAAudioDeviceTests: XCTestCase {
    struct Fixture: Sendable {
        let directory: String
        let infile: String
        let outfile: String
        let inputTone: [Int16]
    }

    /// Writes the config and the capture infile once per process, then points libasound at them.
    static let fixture: Fixture = {
        let directory = NSTemporaryDirectory() + "alsa-test-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fixture = Fixture(
            directory: directory, infile: directory + "/in.raw", outfile: directory + "/out.raw",
            inputTone: testTone(count: 9_600, frequency: 700))
        _ = FileManager.default.createFile(atPath: fixture.infile, contents: Data(RIFFBytes.samples(fixture.inputTone)))
        let config = """
            </usr/share/alsa/alsa.conf>
            pcm.voicetest_in {
              type file
              slave.pcm null
              file "\(directory)/capture-copy.raw"
              infile "\(fixture.infile)"
              format raw
            }
            pcm.voicetest_out {
              type file
              slave.pcm null
              file "\(fixture.outfile)"
              format raw
            }
            """
        let configPath = directory + "/asound.conf"
        _ = FileManager.default.createFile(atPath: configPath, contents: Data(config.utf8))
        setenv("ALSA_CONFIG_PATH", configPath, 1)
        ALSAAudioDevice.reloadConfiguration()
        return fixture
    }()

    override func setUp() { _ = Self.fixture }

    override class func tearDown() {
        try? FileManager.default.removeItem(atPath: fixture.directory)
        // Later tests (the fault-injection and PulseAudio ones) open `null` and `pulse` from the
        // system configuration; a path to the removed file would leave libasound with none.
        unsetenv("ALSA_CONFIG_PATH")
        ALSAAudioDevice.reloadConfiguration()
        super.tearDown()
    }

    func testCaptureThroughFilePluginReturnsTheInfileSamples() throws {
        let device = try ALSAAudioDevice(configuration: .init(captureDevice: "voicetest_in"))
        let context = CollectingAudioContext()
        try device.startCapturing(context: context)
        XCTAssertTrue(context.wait { $0.captured.count >= 9_600 + 960 })
        device.stopCapturing()
        let captured = context.captured
        XCTAssertEqual(Array(captured.prefix(9_600)), Self.fixture.inputTone)
        XCTAssert(captured[9_600..<10_560].allSatisfy { $0 == 0 }, "silence after the infile ends")
        XCTAssertEqual(context.events, [])
    }

    func testPlaybackThroughFilePluginWritesRenderedSamples() throws {
        let tone = testTone(count: 4_800, frequency: 600)
        let device = try ALSAAudioDevice(configuration: .init(playbackDevice: "voicetest_out", playbackPrefillPeriods: 1))
        let context = CollectingAudioContext(renderSource: tone)
        try device.startRendering(context: context)
        XCTAssertTrue(context.wait { $0.renderedSamples >= 4_800 + 960 })
        device.stopRendering()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixture.outfile)))
        let written: [Int16] = stride(from: 0, to: bytes.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
        }
        XCTAssertGreaterThanOrEqual(written.count, 480 + 4_800)
        XCTAssert(written.prefix(480).allSatisfy { $0 == 0 }, "one period of prefill silence")
        XCTAssertEqual(Array(written[480..<5_280]), tone)
    }

    func testNullDeviceIsPacedInRealTime() throws {
        let device = try ALSAAudioDevice(name: "null")
        let context = CollectingAudioContext(renderSource: testTone(count: 48_000))
        let clock = MonotonicMediaClock()
        let start = clock.now()
        try device.startCapturing(context: context)
        try device.startRendering(context: context)
        XCTAssertTrue(context.wait(timeout: 10) { $0.captureCalls >= 30 && $0.renderCalls >= 30 })
        let elapsed = clock.now() - start
        device.stopCapturing()
        device.stopRendering()
        // `null` returns at once, so only the device's own deadlines can pace it: period n is not
        // moved before (n - 1) periods have passed. A loaded machine makes periods late, never early.
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(29 * 10), "30 periods of 10 ms each way took \(elapsed)")
        XCTAssert(context.captured.allSatisfy { $0 == 0 })
    }

    func testMissingPCMFailsToOpenWithTypedError() throws {
        let device = try ALSAAudioDevice(name: "voicetest_no_such_pcm")
        for start in [device.startCapturing, device.startRendering] {
            XCTAssertThrowsError(try start(CollectingAudioContext())) { error in
                guard let error = error as? AudioDeviceError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.kind, .openFailed)
                XCTAssertLessThan(error.code, 0)
                XCTAssertTrue(error.message.contains("voicetest_no_such_pcm"), error.message)
            }
        }
        device.stopCapturing()
        device.stopRendering()
    }

    func testDisabledCapturesSilenceKeepingPace() throws {
        let device = try ALSAAudioDevice(configuration: .init(captureDevice: "voicetest_in"))
        device.isEnabled = false
        let context = CollectingAudioContext()
        try device.startCapturing(context: context)
        XCTAssertTrue(context.wait { $0.captureCalls >= 10 })
        device.stopCapturing()
        XCTAssert(context.captured.allSatisfy { $0 == 0 })
    }

    func testStopIsIdempotentAndNoCallbackAfterStop() throws {
        let device = try ALSAAudioDevice(name: "null")
        let context = CollectingAudioContext()
        try device.startCapturing(context: context)
        try device.startRendering(context: context)
        XCTAssertThrowsError(try device.startRendering(context: context)) { error in
            XCTAssertEqual((error as? AudioDeviceError)?.kind, .alreadyStarted)
        }
        XCTAssertTrue(context.wait { $0.captureCalls >= 3 && $0.renderCalls >= 3 })
        device.stopCapturing()
        device.stopRendering()
        context.close()
        device.stopCapturing()
        device.stopRendering()
        usleep(50_000)
        XCTAssertEqual(context.callbacksAfterClose, 0)
        // The PCM was closed: it opens again.
        try device.startCapturing(context: CollectingAudioContext())
        device.stopCapturing()
    }

    func testRejectsPeriodsOutsideTenToTwentyMilliseconds() {
        for frames in [240, 1_440] {
            XCTAssertThrowsError(try ALSAAudioDevice(format: AudioFormat(sampleRate: 48_000, channels: 1, framesPerBuffer: frames))) {
                error in
                XCTAssertEqual((error as? AudioDeviceError)?.kind, .unsupportedFormat)
            }
        }
        XCTAssertNoThrow(try ALSAAudioDevice(format: AudioFormat(sampleRate: 48_000, channels: 1, framesPerBuffer: 960)))
    }

    func testStoppingFromInsideACallbackEndsCaptureAndThreadsAreNamed() throws {
        let device = try ALSAAudioDevice(name: "null")
        let context = CollectingAudioContext()
        try device.startRendering(context: context)
        XCTAssertTrue(context.wait { $0.renderCalls > 0 })
        XCTAssertTrue(currentThreadNames().contains("voice-alsa-play"), "\(currentThreadNames())")
        device.stopRendering()

        let state = try SelfStoppingAudioContext().runUntilStopped(device)
        XCTAssertEqual(state.calls, 3)
        XCTAssertEqual(state.callsAfterStop, 0)
        // The thread closed its PCM on the way out: capture opens again.
        try device.startCapturing(context: CollectingAudioContext())
        device.stopCapturing()
    }
}
