import Foundation
import VoiceEmbedded
import VoiceSupport
import VoiceTestAudio
import XCTest

@testable import VoiceMedia

/// Recordings as their files hold them: each direction in its channel (or both mixed), as WAV
/// and as Ogg Opus read back page by page and decoded, and the typed errors of a path that
/// cannot be created and of a disk that fills up mid-recording.
final class AudioRecordingTests: XCTestCase {
    private let sent = TestSignals.multiTone([(500, 6_000)], seconds: 1)
    private let received = TestSignals.multiTone([(900, 6_000)], seconds: 1)

    /// Records one second of each direction (handed over as a media thread would, 20 ms at a
    /// time) and waits for the summary.
    /// Feeds `seconds` of the two tones; with `writerStartsLate` the writer thread starts only
    /// after all of it is in the tap (a writer that a loaded machine ran late).
    private func record(
        to path: String, options: AudioRecordingOptions, seconds: Int = 1, writerStartsLate: Bool = false
    ) throws -> AudioRecordingSummary {
        let done = Locked<AudioRecordingSummary?>(nil)
        let recording = try AudioRecording(path: path, options: options, twoDirections: true) { summary in done.withLock { $0 = summary } }
        if !writerStartsLate { recording.start() }
        for _ in 0..<seconds {
            for start in stride(from: 0, to: 48_000, by: 960) {
                sent.withUnsafeBufferPointer { recording.tap.recordSent(UnsafeBufferPointer(rebasing: $0[start..<(start + 960)])) }
                received.withUnsafeBufferPointer { recording.tap.recordReceived(UnsafeBufferPointer(rebasing: $0[start..<(start + 960)])) }
                if start % 9_600 == 0 { Thread.sleep(forTimeInterval: 0.01) }
            }
        }
        if writerStartsLate { recording.start() }
        recording.stop()
        XCTAssertTrue(PollingWait.until(timeout: 5) { done.withLock { $0 } != nil }, "the recording finished")
        return try XCTUnwrap(done.withLock { $0 })
    }

    private func temporaryPath(_ name: String) -> String {
        let directory = NSTemporaryDirectory() + "recording-test-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        return directory + "/" + name
    }

    func testStereoWAVHoldsEachDirectionInItsChannel() throws {
        let path = temporaryPath("call.wav")
        let summary = try record(to: path, options: AudioRecordingOptions(path: path))
        XCTAssertNil(summary.error)
        XCTAssertEqual(summary.droppedSamples, 0)
        XCTAssertEqual(summary.seconds, 1, accuracy: 0.001)
        let file = try WAVFile(contentsOfFile: path)
        XCTAssertEqual(file.channels, 2)
        XCTAssertEqual(file.sampleRate, 48_000)
        let left = file.channel(0), right = file.channel(1)
        XCTAssertEqual(left.count, 48_000)
        XCTAssertEqual(ToneAmplitude.of(500, in: left), 6_000, accuracy: 30, "left: what was sent")
        XCTAssertLessThan(ToneAmplitude.of(900, in: left), 10)
        XCTAssertEqual(ToneAmplitude.of(900, in: right), 6_000, accuracy: 30, "right: what was received")
        XCTAssertLessThan(ToneAmplitude.of(500, in: right), 10)
    }

    func testMixedWAVHoldsBothDirectionsInOneChannel() throws {
        let path = temporaryPath("mixed.wav")
        let summary = try record(to: path, options: AudioRecordingOptions(format: .wav, layout: .mixed))
        XCTAssertNil(summary.error)
        let file = try WAVFile(contentsOfFile: path)
        XCTAssertEqual(file.channels, 1)
        XCTAssertEqual(ToneAmplitude.of(500, in: file.samples), 6_000, accuracy: 30)
        XCTAssertEqual(ToneAmplitude.of(900, in: file.samples), 6_000, accuracy: 30)
    }

    func testOggOpusIsReadBackWithEachDirectionInItsChannel() throws {
        let path = temporaryPath("call.opus")
        let options = AudioRecordingOptions(path: path)
        XCTAssertEqual(options.format, .oggOpus, "chosen by the name")
        let summary = try record(to: path, options: options)
        XCTAssertNil(summary.error)
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: path))
        let packets = try OggPackets.read([UInt8](bytes))
        XCTAssertGreaterThan(packets.count, 40)
        XCTAssertEqual(Array(packets[0].prefix(8)), Array("OpusHead".utf8), "RFC 7845's identification header")
        XCTAssertEqual(packets[0][9], 2, "two channels")
        XCTAssertEqual(Array(packets[1].prefix(8)), Array("OpusTags".utf8))
        let decoder = try OpusDecoder(sampleRate: 48_000, channels: 2)
        var pcm = [Int16](repeating: 0, count: 2 * 5_760)
        var left: [Int16] = [], right: [Int16] = []
        for packet in packets.dropFirst(2) {
            let n = try packet.withUnsafeBytes { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
            for i in 0..<n {
                left.append(pcm[2 * i])
                right.append(pcm[2 * i + 1])
            }
        }
        XCTAssertGreaterThanOrEqual(left.count, 48_000)
        let middle = 9_600..<38_400
        XCTAssertEqual(ToneAmplitude.of(500, in: left[middle]), 6_000, accuracy: 600, "left: what was sent")
        XCTAssertLessThan(ToneAmplitude.of(900, in: left[middle]), 300)
        XCTAssertEqual(ToneAmplitude.of(900, in: right[middle]), 6_000, accuracy: 600, "right: what was received")
        XCTAssertLessThan(ToneAmplitude.of(500, in: right[middle]), 300)
        XCTAssertLessThan(bytes.count, 48_000 * 4 / 5, "smaller than the WAV by far")
    }

    func testAPathThatCannotBeCreatedIsATypedErrorAtOnce() {
        for format in [AudioRecordingOptions.Format.wav, .oggOpus] {
            XCTAssertThrowsError(
                try AudioRecording(path: "/nonexistent-directory/call.wav", options: AudioRecordingOptions(format: format), twoDirections: true) { _ in }
            ) { error in
                XCTAssertEqual((error as? AudioRecordingError)?.kind, .cannotCreateFile, "\(format): \(error)")
            }
        }
    }

    /// A disk that fills up mid-recording (a 64 KiB tmpfs: a third of a second of stereo WAV)
    /// ends the recording with `.writeFailed`, and what was written before stays and is counted,
    /// even when the writer ran late and found the whole second waiting.
    func testAFullDiskEndsTheRecordingWithATypedError() throws {
        let directory = temporaryPath("small-disk")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=64k", "tmpfs", directory]
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else {
            if ProcessInfo.processInfo.environment["CI"] == "true" { return XCTFail("mounting a tmpfs needs root") }
            throw XCTSkip("mounting a tmpfs needs root")
        }
        defer {
            let unmount = Process()
            unmount.executableURL = URL(fileURLWithPath: "/bin/umount")
            unmount.arguments = [directory]
            try? unmount.run()
            unmount.waitUntilExit()
        }
        let summary = try record(to: directory + "/call.wav", options: AudioRecordingOptions(format: .wav), seconds: 1, writerStartsLate: true)
        XCTAssertEqual(summary.error?.kind, .writeFailed, "\(String(describing: summary.error))")
        XCTAssertLessThan(summary.seconds, 0.4)
        XCTAssertGreaterThan(summary.seconds, 0.25, "what fitted was written, counted 20 ms at a time however late the writer ran")
    }
}

/// Reads an Ogg stream's packets (RFC 3533): pages, their segment tables, packets spanning them.
enum OggPackets {
    struct Malformed: Error {}

    static func read(_ bytes: [UInt8]) throws -> [[UInt8]] {
        var packets: [[UInt8]] = []
        var current: [UInt8] = []
        var offset = 0
        while offset < bytes.count {
            guard offset + 27 <= bytes.count, Array(bytes[offset..<(offset + 4)]) == Array("OggS".utf8) else { throw Malformed() }
            let segments = Int(bytes[offset + 26])
            guard offset + 27 + segments <= bytes.count else { throw Malformed() }
            let table = bytes[(offset + 27)..<(offset + 27 + segments)]
            var data = offset + 27 + segments
            for length in table {
                guard data + Int(length) <= bytes.count else { throw Malformed() }
                current += bytes[data..<(data + Int(length))]
                data += Int(length)
                if length < 255 {
                    packets.append(current)
                    current = []
                }
            }
            offset = data
        }
        return packets
    }
}
