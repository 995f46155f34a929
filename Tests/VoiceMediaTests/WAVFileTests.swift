import VoiceBytes
import XCTest
@testable import VoiceMedia
import VoiceSupport
import VoiceMediaTypes

/// Little helpers to build RIFF bytes by hand.
enum RIFFBytes {
    static func fourCC(_ s: String) -> [UInt8] { Array(s.utf8) }
    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
    static func chunk(_ id: String, _ body: [UInt8], pad: Bool = true) -> [UInt8] {
        fourCC(id) + le32(UInt32(body.count)) + body + (pad && body.count % 2 == 1 ? [0] : [])
    }
    static func fmt(
        tag: UInt16 = 1, channels: UInt16 = 1, rate: UInt32 = 8000, bits: UInt16 = 16,
        blockAlign: UInt16? = nil, byteRate: UInt32? = nil
    ) -> [UInt8] {
        let align = blockAlign ?? channels * bits / 8
        return le16(tag) + le16(channels) + le32(rate) + le32(byteRate ?? rate * UInt32(align)) + le16(align) + le16(bits)
    }
    static func riff(_ chunks: [UInt8], form: String = "WAVE", sizeDelta: Int = 0) -> [UInt8] {
        fourCC("RIFF") + le32(UInt32(chunks.count + 4 + sizeDelta)) + fourCC(form) + chunks
    }
    static func samples(_ s: [Int16]) -> [UInt8] { s.flatMap { le16(UInt16(bitPattern: $0)) } }
}

final class WAVFileTests: XCTestCase {
    private func parse(_ bytes: [UInt8]) throws -> WAVFile {
        try bytes.withUnsafeBytes { try WAVFile(parsing: $0) }
    }

    private func assertRejects(_ bytes: [UInt8], _ expected: WAVFileError, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try parse(bytes), file: file, line: line) { error in
            XCTAssertEqual(error as? WAVFileError, expected, file: file, line: line)
        }
    }

    /// The canonical 44-byte header (8 kHz mono 16-bit) typed in byte by byte, then 4 samples.
    static let canonical: [UInt8] = [
        0x52, 0x49, 0x46, 0x46, 0x2C, 0x00, 0x00, 0x00, 0x57, 0x41, 0x56, 0x45,  // "RIFF", 44, "WAVE"
        0x66, 0x6D, 0x74, 0x20, 0x10, 0x00, 0x00, 0x00,  // "fmt ", 16
        0x01, 0x00, 0x01, 0x00, 0x40, 0x1F, 0x00, 0x00,  // PCM, 1 ch, 8000 Hz
        0x80, 0x3E, 0x00, 0x00, 0x02, 0x00, 0x10, 0x00,  // 16000 B/s, align 2, 16 bits
        0x64, 0x61, 0x74, 0x61, 0x08, 0x00, 0x00, 0x00,  // "data", 8
        0x00, 0x00, 0xFF, 0x7F, 0x00, 0x80, 0xFE, 0xFF,  // 0, 32767, -32768, -2
    ]

    func testParsesCanonicalHeaderVector() throws {
        let wav = try parse(Self.canonical)
        XCTAssertEqual(wav.sampleRate, 8000)
        XCTAssertEqual(wav.channels, 1)
        XCTAssertEqual(wav.samples, [0, 32767, -32768, -2])
        XCTAssertEqual(wav.audioFormat(), AudioFormat(sampleRate: 8000, channels: 1, framesPerBuffer: 80))
    }

    func testSerializesExactlyTheCanonicalVector() throws {
        let wav = WAVFile(sampleRate: 8000, channels: 1, samples: [0, 32767, -32768, -2])
        XCTAssertEqual(try wav.serialized(), Self.canonical)
    }

    func testParsesFromSliceNotStartingAtZero() throws {
        let padded: [UInt8] = [0xAA, 0xBB, 0xCC] + Self.canonical
        let wav = try padded[3...].withUnsafeBytes { try WAVFile(parsing: $0) }
        XCTAssertEqual(wav.samples, [0, 32767, -32768, -2])
    }

    func testUnfinishedRecordingIsReadToTheEndOnlyWhenAsked() throws {
        // A recorder that has not closed its file yet: RIFF and data sizes still 0, and a half frame at the end.
        var bytes = try WAVFile(sampleRate: 48_000, channels: 2, samples: [1, -1, 2, -2, 3, -3]).serialized()
        for offset in [4, 40] { bytes.replaceSubrange(offset..<(offset + 4), with: [0, 0, 0, 0]) }
        bytes += [0x7F]
        let parsed = try bytes.withUnsafeBytes { try WAVFile(parsing: $0, unfinished: true) }
        XCTAssertEqual(parsed.samples, [1, -1, 2, -2, 3, -3])
        XCTAssertEqual(parsed.channel(0), [1, 2, 3])
        XCTAssertEqual(parsed.channel(1), [-1, -2, -3])
        XCTAssertEqual(parsed.channel(2), [])
        XCTAssertThrowsError(try bytes.withUnsafeBytes { try WAVFile(parsing: $0) }, "strict parsing refuses it")
    }

    func testStereoRoundTripAtAnyRate() throws {
        let samples: [Int16] = (0..<882).map { Int16(truncatingIfNeeded: $0 * 37 - 16000) }
        let wav = WAVFile(sampleRate: 44_100, channels: 2, samples: samples)
        let back = try parse(try wav.serialized())
        XCTAssertEqual(back, wav)
        XCTAssertEqual(back.frameCount, 441)
        XCTAssertEqual(back.audioFormat().framesPerBuffer, 441)
    }

    func testSkipsUnknownChunksIncludingOddPadding() throws {
        let list = RIFFBytes.chunk("LIST", RIFFBytes.fourCC("INFO") + [0x49, 0x53, 0x46, 0x54, 0x01, 0x00, 0x00, 0x00, 0x41])  // 13 bytes, padded
        let bytes = RIFFBytes.riff(
            list + RIFFBytes.chunk("fmt ", RIFFBytes.fmt(rate: 16_000))
                + RIFFBytes.chunk("fact", [1, 0, 0, 0]) + RIFFBytes.chunk("data", RIFFBytes.samples([5, -5, 7])))
        let wav = try parse(bytes)
        XCTAssertEqual(wav.sampleRate, 16_000)
        XCTAssertEqual(wav.samples, [5, -5, 7])
    }

    func testAcceptsExtensibleWithPCMSubformat() throws {
        let guidPCM: [UInt8] = [0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        let ext =
            RIFFBytes.fmt(tag: 0xFFFE, channels: 2, rate: 48_000) + RIFFBytes.le16(22) + RIFFBytes.le16(16)
            + RIFFBytes.le32(3) + guidPCM
        let wav = try parse(RIFFBytes.riff(RIFFBytes.chunk("fmt ", ext) + RIFFBytes.chunk("data", RIFFBytes.samples([1, 2, 3, 4]))))
        XCTAssertEqual(wav.channels, 2)
        XCTAssertEqual(wav.sampleRate, 48_000)
        XCTAssertEqual(wav.samples, [1, 2, 3, 4])

        var guidFloat = guidPCM
        guidFloat[0] = 0x03
        let float =
            RIFFBytes.fmt(tag: 0xFFFE, channels: 2, rate: 48_000) + RIFFBytes.le16(22) + RIFFBytes.le16(16)
            + RIFFBytes.le32(3) + guidFloat
        assertRejects(
            RIFFBytes.riff(RIFFBytes.chunk("fmt ", float) + RIFFBytes.chunk("data", RIFFBytes.samples([1, 2]))),
            .unsupportedEncoding(formatTag: 3))
        let shortExt = RIFFBytes.fmt(tag: 0xFFFE, channels: 1) + RIFFBytes.le16(0)
        assertRejects(
            RIFFBytes.riff(RIFFBytes.chunk("fmt ", shortExt) + RIFFBytes.chunk("data", [])),
            .formatChunkTooShort(size: 18))
    }

    func testRejectsMalformedHeaders() {
        let fmt = RIFFBytes.chunk("fmt ", RIFFBytes.fmt())
        let data = RIFFBytes.chunk("data", RIFFBytes.samples([1, 2]))
        assertRejects([], .truncated)
        assertRejects(Array("RIFF".utf8), .truncated)
        assertRejects(Array("RIFX".utf8) + RIFFBytes.le32(4) + Array("WAVE".utf8), .notRIFF)
        assertRejects(RIFFBytes.riff(fmt + data, form: "AVI "), .notWAVE)
        assertRejects(RIFFBytes.riff(fmt), .missingDataChunk)
        assertRejects(RIFFBytes.riff(data + fmt), .missingFormatChunk)
        assertRejects(RIFFBytes.riff(RIFFBytes.chunk("fmt ", Array(RIFFBytes.fmt().prefix(14))) + data), .formatChunkTooShort(size: 14))
    }

    func testRejectsLengthsThatLie() {
        let fmt = RIFFBytes.chunk("fmt ", RIFFBytes.fmt())
        let data = RIFFBytes.chunk("data", RIFFBytes.samples([1, 2]))
        assertRejects(
            RIFFBytes.riff(fmt + data, sizeDelta: 10),
            .chunkSizeExceedsFile(
                chunkID: WAVFile.riff, declared: UInt32(fmt.count + data.count + 14), available: fmt.count + data.count + 4))
        let lyingData = RIFFBytes.fourCC("data") + RIFFBytes.le32(1000) + RIFFBytes.samples([1, 2])
        assertRejects(RIFFBytes.riff(fmt + lyingData), .chunkSizeExceedsFile(chunkID: WAVFile.data, declared: 1000, available: 4))
        assertRejects(RIFFBytes.riff(fmt + RIFFBytes.chunk("data", [1, 2, 3])), .partialFrame(dataSize: 3))
        let stereo = RIFFBytes.chunk("fmt ", RIFFBytes.fmt(channels: 2))
        assertRejects(RIFFBytes.riff(stereo + RIFFBytes.chunk("data", RIFFBytes.samples([1, 2, 3]))), .partialFrame(dataSize: 6))
    }

    func testRejectsUnsupportedEncodings() {
        let data = RIFFBytes.chunk("data", RIFFBytes.samples([1, 2]))
        func withFmt(_ body: [UInt8]) -> [UInt8] { RIFFBytes.riff(RIFFBytes.chunk("fmt ", body) + data) }
        assertRejects(withFmt(RIFFBytes.fmt(tag: 3, bits: 32)), .unsupportedEncoding(formatTag: 3))
        assertRejects(withFmt(RIFFBytes.fmt(tag: 6, bits: 8)), .unsupportedEncoding(formatTag: 6))
        assertRejects(withFmt(RIFFBytes.fmt(bits: 8)), .unsupportedBitsPerSample(8))
        assertRejects(withFmt(RIFFBytes.fmt(bits: 24)), .unsupportedBitsPerSample(24))
        assertRejects(withFmt(RIFFBytes.fmt(channels: 3)), .unsupportedChannelCount(3))
        assertRejects(withFmt(RIFFBytes.fmt(channels: 0, blockAlign: 2, byteRate: 16000)), .unsupportedChannelCount(0))
        assertRejects(withFmt(RIFFBytes.fmt(rate: 0)), .invalidSampleRate(0))
        assertRejects(withFmt(RIFFBytes.fmt(blockAlign: 4)), .inconsistentFormat)
        assertRejects(withFmt(RIFFBytes.fmt(byteRate: 12345)), .inconsistentFormat)
    }

    func testEveryTruncationThrowsATypedError() throws {
        let full = try WAVFile(sampleRate: 48_000, channels: 2, samples: [1, 2, 3, 4, 5, 6]).serialized()
        for length in 0..<full.count {
            XCTAssertThrowsError(try parse(Array(full.prefix(length))), "prefix \(length)") { error in
                XCTAssertNotNil(error as? WAVFileError, "prefix \(length): \(error)")
            }
        }
        XCTAssertNoThrow(try parse(full))
    }

    func testFileRoundTripAndMissingFile() throws {
        let path = NSTemporaryDirectory() + "wavfile-\(getpid())-\(UUID().uuidString).wav"
        defer { unlink(path) }
        let wav = WAVFile(sampleRate: 16_000, channels: 1, samples: (0..<1600).map { Int16($0 % 200 - 100) })
        try wav.write(toFile: path)
        XCTAssertEqual(try WAVFile(contentsOfFile: path), wav)
        XCTAssertThrowsError(try WAVFile(contentsOfFile: path + ".missing")) { error in
            guard case let .io(code, operation, _)? = error as? WAVFileError else { return XCTFail("\(error)") }
            XCTAssertEqual(code, ENOENT)
            XCTAssertEqual(operation, "open")
        }
    }

    func testLittleEndianReaderHelpers() throws {
        let bytes: [UInt8] = [0x34, 0x12, 0x78, 0x56, 0x34, 0x12, 0xFF]
        try bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            XCTAssertEqual(try reader.readUInt16LE(), 0x1234)
            XCTAssertEqual(try reader.readUInt32LE(), 0x1234_5678)
            XCTAssertThrowsError(try reader.readUInt16LE())
            XCTAssertEqual(reader.offset, 6)
        }
    }
}
