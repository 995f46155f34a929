import XCTest
@testable import VoiceMedia
import VoiceMediaTypes
import VoiceSupport

final class WAVFileWriterTests: XCTestCase {
    private var path = ""

    override func setUp() {
        path = NSTemporaryDirectory() + "wavwriter-\(getpid())-\(UUID().uuidString).wav"
    }

    override func tearDown() { unlink(path) }

    func testStreamsAndPatchesSizesOnClose() throws {
        let writer = try WAVFileWriter(path: path, sampleRate: 48_000, channels: 2)
        let a: [Int16] = (0..<960).map { Int16($0) }
        let b: [Int16] = (0..<480).map { Int16(-$0) }
        try a.withUnsafeBufferPointer { try writer.append($0) }
        try b.withUnsafeBufferPointer { try writer.append($0) }
        XCTAssertEqual(writer.framesWritten, 720)
        // Before close the header still says zero bytes of data.
        let early = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(Array(early[40..<44]), [0, 0, 0, 0])
        try writer.close()
        try writer.close()  // Idempotent.

        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(bytes.count, 44 + 2880)
        XCTAssertEqual(Array(bytes[4..<8]), RIFFBytes.le32(36 + 2880))
        XCTAssertEqual(Array(bytes[40..<44]), RIFFBytes.le32(2880))
        let wav = try WAVFile(contentsOfFile: path)
        XCTAssertEqual(wav.sampleRate, 48_000)
        XCTAssertEqual(wav.channels, 2)
        XCTAssertEqual(wav.samples, a + b)
    }

    func testAppendAfterCloseThrows() throws {
        let writer = try WAVFileWriter(path: path, sampleRate: 8000, channels: 1)
        try writer.close()
        let one: [Int16] = [1]
        XCTAssertThrowsError(try one.withUnsafeBufferPointer { try writer.append($0) }) { error in
            guard case .io? = error as? WAVFileError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try WAVFile(contentsOfFile: path).samples, [])
    }

    func testRejectsBadFormatAndUnwritablePath() {
        XCTAssertThrowsError(try WAVFileWriter(path: path, sampleRate: 8000, channels: 3)) { error in
            XCTAssertEqual(error as? WAVFileError, .unsupportedChannelCount(3))
        }
        XCTAssertThrowsError(try WAVFileWriter(path: path, sampleRate: 0, channels: 1)) { error in
            XCTAssertEqual(error as? WAVFileError, .invalidSampleRate(0))
        }
        XCTAssertThrowsError(try WAVFileWriter(path: "/nonexistent-dir/x.wav", sampleRate: 8000, channels: 1)) { error in
            guard case let .io(code, _, _)? = error as? WAVFileError else { return XCTFail("\(error)") }
            XCTAssertEqual(code, ENOENT)
        }
    }

    func testDeinitFinalizesHeader() throws {
        do {
            let writer = try WAVFileWriter(path: path, sampleRate: 8000, channels: 1)
            let s: [Int16] = [7, 8, 9]
            try s.withUnsafeBufferPointer { try writer.append($0) }
        }
        XCTAssertEqual(try WAVFile(contentsOfFile: path).samples, [7, 8, 9])
    }
}
