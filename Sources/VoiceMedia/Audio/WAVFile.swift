import VoiceBytes
import VoiceSupport
/// A 16-bit PCM RIFF/WAVE file held in memory: its format and interleaved samples.
///
/// Parsing accepts `WAVE_FORMAT_PCM` and `WAVE_FORMAT_EXTENSIBLE` with the PCM sub-format,
/// 16 bits, mono or stereo, any rate up to 384 kHz; it skips unknown chunks (`LIST`, `fact`, …)
/// including their odd-size pad byte, and rejects anything malformed with a ``WAVFileError``.
/// Serializing always writes the canonical 44-byte PCM header. For long recordings use
/// ``WAVFileWriter``, which streams to disk.
package struct WAVFile: Hashable, Sendable {
    /// Frames per second.
    package var sampleRate: Int
    /// 1 (mono) or 2 (stereo).
    package var channels: Int
    /// Interleaved samples, native endian.
    package var samples: [Int16]

    /// Creates a file from interleaved samples.
    package init(sampleRate: Int, channels: Int, samples: [Int16]) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
    }

    /// Frames (samples per channel).
    package var frameCount: Int { channels > 0 ? samples.count / channels : 0 }

    /// The samples of one channel (0-based); empty for a channel the file does not have.
    package func channel(_ index: Int) -> [Int16] {
        guard index >= 0, index < channels else { return [] }
        guard channels > 1 else { return samples }
        return stride(from: index, to: samples.count, by: channels).map { samples[$0] }
    }

    /// The device format for this file with periods of `periodMilliseconds` (default 10 ms).
    package func audioFormat(periodMilliseconds: Int = 10) -> AudioFormat {
        AudioFormat(sampleRate: sampleRate, channels: channels, framesPerBuffer: max(1, sampleRate * periodMilliseconds / 1000))
    }

    // MARK: Constants

    static let riff: UInt32 = 0x5249_4646  // "RIFF", read as big-endian so it compares to the literal
    static let wave: UInt32 = 0x5741_5645  // "WAVE"
    static let fmt: UInt32 = 0x666D_7420  // "fmt "
    static let data: UInt32 = 0x6461_7461  // "data"
    static let formatPCM: UInt16 = 0x0001
    static let formatExtensible: UInt16 = 0xFFFE
    /// The tail shared by every `KSDATAFORMAT_SUBTYPE_*` GUID after its leading 16-bit format tag.
    static let subFormatGUIDTail: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
    /// Size of the canonical header written by ``serialized()`` and ``WAVFileWriter``.
    static let canonicalHeaderSize = 44
    static let maxSampleRate: UInt32 = 384_000

    /// Renders a four-character code for messages.
    static func fourCCString(_ code: UInt32) -> String {
        var s = ""
        for shift in stride(from: 24, through: 0, by: -8) {
            let byte = UInt8(truncatingIfNeeded: code >> UInt32(shift))
            s.append((0x20...0x7E).contains(byte) ? Character(Unicode.Scalar(byte)) : "?")
        }
        return s
    }
}

// MARK: - Parsing

extension WAVFile {
    /// The format fields of a `fmt ` chunk, validated.
    struct Format: Equatable {
        var channels: Int
        var sampleRate: Int
        var blockAlign: Int
    }

    /// Parses a complete WAV file.
    ///
    /// - Parameters:
    ///   - bytes: The file.
    ///   - unfinished: Accept a file whose writer has not finalised it yet (RIFF and data sizes
    ///     still 0, stale or larger than the file, as a recorder still running or killed leaves
    ///     it): the RIFF body is the rest of the file and a data chunk of size 0 or past the end
    ///     runs to the end of the file, whole frames only.
    /// - Throws: ``WAVFileError`` for truncated, malformed or non-16-bit-PCM input; never traps.
    package init(parsing bytes: UnsafeRawBufferPointer, unfinished: Bool = false) throws(WAVFileError) {
        var reader = ByteReader(bytes)
        do {
            guard try reader.readUInt32() == Self.riff else { throw WAVFileError.notRIFF }
            var riffSize = try reader.readUInt32LE()
            // A header written before the data and not updated since declares too little, or 0.
            if unfinished { riffSize = UInt32(clamping: reader.remaining) }
            guard Int(riffSize) <= reader.remaining else {
                throw WAVFileError.chunkSizeExceedsFile(chunkID: Self.riff, declared: riffSize, available: reader.remaining)
            }
            // Only the bytes the RIFF container declares belong to the file.
            var body = ByteReader(try reader.readBytes(Int(riffSize)))
            guard try body.readUInt32() == Self.wave else { throw WAVFileError.notWAVE }

            var format: Format?
            while !body.isAtEnd {
                let id = try body.readUInt32()
                var size = try body.readUInt32LE()
                if unfinished, id == Self.data, size == 0 || Int(size) > body.remaining, let format {
                    size = UInt32(clamping: body.remaining - body.remaining % format.blockAlign)
                }
                guard Int(size) <= body.remaining else {
                    throw WAVFileError.chunkSizeExceedsFile(chunkID: id, declared: size, available: body.remaining)
                }
                var chunk = ByteReader(try body.readBytes(Int(size)))
                // Chunks are word aligned: an odd-sized chunk is followed by one pad byte (absent at the very end in sloppy writers).
                if size % 2 == 1, !body.isAtEnd { try body.skip(1) }
                switch id {
                case Self.fmt:
                    format = try Self.parseFormat(&chunk, size: size)
                case Self.data:
                    guard let format else { throw WAVFileError.missingFormatChunk }
                    guard Int(size) % format.blockAlign == 0 else { throw WAVFileError.partialFrame(dataSize: size) }
                    var samples = [Int16]()
                    samples.reserveCapacity(Int(size) / 2)
                    while !chunk.isAtEnd {
                        samples.append(Int16(bitPattern: try chunk.readUInt16LE()))
                    }
                    self.init(sampleRate: format.sampleRate, channels: format.channels, samples: samples)
                    return
                default:
                    continue  // LIST, fact, cue, …: not needed.
                }
            }
            throw WAVFileError.missingDataChunk
        } catch let error as WAVFileError {
            throw error
        } catch {
            throw WAVFileError.truncated  // The only other error the cursor throws.
        }
    }

    static func parseFormat(_ chunk: inout ByteReader, size: UInt32) throws(WAVFileError) -> Format {
        do {
            guard size >= 16 else { throw WAVFileError.formatChunkTooShort(size: size) }
            var tag = try chunk.readUInt16LE()
            let channels = try chunk.readUInt16LE()
            let rate = try chunk.readUInt32LE()
            let byteRate = try chunk.readUInt32LE()
            let blockAlign = try chunk.readUInt16LE()
            let bits = try chunk.readUInt16LE()
            if tag == formatExtensible {
                // cbSize, validBitsPerSample, channelMask, then the 16-byte sub-format GUID.
                guard size >= 40, try chunk.readUInt16LE() >= 22 else { throw WAVFileError.formatChunkTooShort(size: size) }
                try chunk.skip(2 + 4)
                tag = try chunk.readUInt16LE()
                let tail = try chunk.readBytes(14)
                guard tail.elementsEqual(subFormatGUIDTail) else { throw WAVFileError.unsupportedEncoding(formatTag: formatExtensible) }
            }
            guard tag == formatPCM else { throw WAVFileError.unsupportedEncoding(formatTag: tag) }
            guard bits == 16 else { throw WAVFileError.unsupportedBitsPerSample(bits) }
            guard channels == 1 || channels == 2 else { throw WAVFileError.unsupportedChannelCount(channels) }
            guard rate > 0, rate <= maxSampleRate else { throw WAVFileError.invalidSampleRate(rate) }
            let expectedAlign = Int(channels) * 2
            guard Int(blockAlign) == expectedAlign, Int(byteRate) == Int(rate) * expectedAlign else {
                throw WAVFileError.inconsistentFormat
            }
            return Format(channels: Int(channels), sampleRate: Int(rate), blockAlign: expectedAlign)
        } catch let error as WAVFileError {
            throw error
        } catch {
            throw WAVFileError.formatChunkTooShort(size: size)
        }
    }
}

// MARK: - Serializing

extension WAVFile {
    /// The file as bytes: canonical 44-byte PCM header, then little-endian samples.
    ///
    /// - Throws: ``WAVFileError/tooLarge`` past the 4 GiB RIFF limit.
    package func serialized() throws(WAVFileError) -> [UInt8] {
        let dataBytes = samples.count * 2
        guard dataBytes <= Int(UInt32.max) - Self.canonicalHeaderSize else { throw WAVFileError.tooLarge }
        var bytes = [UInt8](repeating: 0, count: Self.canonicalHeaderSize + dataBytes)
        bytes.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            Self.writeCanonicalHeader(into: &writer, sampleRate: sampleRate, channels: channels, dataBytes: UInt32(dataBytes))
            for sample in samples {
                try? writer.writeLE(UInt16(bitPattern: sample))  // Sized exactly above: cannot overflow.
            }
        }
        return bytes
    }

    /// Writes the canonical 44-byte header. `writer` must have 44 free bytes.
    static func writeCanonicalHeader(into writer: inout ByteWriter, sampleRate: Int, channels: Int, dataBytes: UInt32) {
        let blockAlign = UInt16(truncatingIfNeeded: channels * 2)
        do {
            try writer.write(riff)
            try writer.writeLE(dataBytes &+ UInt32(canonicalHeaderSize - 8))
            try writer.write(wave)
            try writer.write(fmt)
            try writer.writeLE(UInt32(16))
            try writer.writeLE(formatPCM)
            try writer.writeLE(UInt16(truncatingIfNeeded: channels))
            try writer.writeLE(UInt32(truncatingIfNeeded: sampleRate))
            try writer.writeLE(UInt32(truncatingIfNeeded: sampleRate) &* UInt32(blockAlign))
            try writer.writeLE(blockAlign)
            try writer.writeLE(UInt16(16))
            try writer.write(data)
            try writer.writeLE(dataBytes)
        } catch {
            preconditionFailure("canonical WAV header needs \(canonicalHeaderSize) bytes: \(error)")
        }
    }
}

// MARK: - Files

extension WAVFile {
    /// Reads and parses the WAV file at `path`; `unfinished` as in ``init(parsing:unfinished:)``.
    package init(contentsOfFile path: String, unfinished: Bool = false) throws(WAVFileError) {
        let bytes = try POSIXFile.readAll(path: path)
        let parsed = bytes.withUnsafeBytes { raw in
            Result { () throws(WAVFileError) in try WAVFile(parsing: raw, unfinished: unfinished) }
        }
        self = try parsed.get()
    }

    /// Writes the file to `path`, replacing what was there.
    package func write(toFile path: String) throws(WAVFileError) {
        let bytes = try serialized()
        let file = try POSIXFile(creating: path)
        defer { file.close() }
        let written = bytes.withUnsafeBytes { raw in
            Result { () throws(WAVFileError) in try file.write(raw) }
        }
        try written.get()
    }
}
