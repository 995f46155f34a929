/// Why a WAV file could not be read or written.
///
/// A closed set: every malformed, truncated or unsupported input maps to exactly one case.
package enum WAVFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes end before a header, chunk header or declared chunk body is complete.
    case truncated
    /// The file does not start with `RIFF`.
    case notRIFF
    /// The RIFF form type is not `WAVE`.
    case notWAVE
    /// A chunk (or the RIFF container) declares a size larger than the bytes that follow it.
    case chunkSizeExceedsFile(chunkID: UInt32, declared: UInt32, available: Int)
    /// The `fmt ` chunk is shorter than the 16 bytes PCM needs, or its extension is cut short.
    case formatChunkTooShort(size: UInt32)
    /// There is no `fmt ` chunk before the `data` chunk.
    case missingFormatChunk
    /// There is no `data` chunk.
    case missingDataChunk
    /// The encoding is not integer PCM (format tag, or the sub-format tag of an extensible header).
    case unsupportedEncoding(formatTag: UInt16)
    /// Only 16-bit samples are supported.
    case unsupportedBitsPerSample(UInt16)
    /// Only mono and stereo are supported.
    case unsupportedChannelCount(UInt16)
    /// The sample rate is zero or beyond 384 kHz.
    case invalidSampleRate(UInt32)
    /// Block align or byte rate disagree with channels × bits × rate.
    case inconsistentFormat
    /// The `data` chunk size is not a whole number of frames.
    case partialFrame(dataSize: UInt32)
    /// The audio would exceed the 4 GiB limit of a RIFF file.
    case tooLarge
    /// A system call failed with `errno`.
    case io(errno: Int32, operation: String, path: String)

    /// A one-line explanation.
    package var description: String {
        switch self {
        case .truncated: return "WAV data is truncated"
        case .notRIFF: return "not a RIFF file"
        case .notWAVE: return "RIFF form is not WAVE"
        case let .chunkSizeExceedsFile(id, declared, available):
            return "chunk \(WAVFile.fourCCString(id)) declares \(declared) bytes but only \(available) follow"
        case let .formatChunkTooShort(size): return "fmt chunk too short (\(size) bytes)"
        case .missingFormatChunk: return "no fmt chunk before the data chunk"
        case .missingDataChunk: return "no data chunk"
        case let .unsupportedEncoding(tag): return "unsupported WAV encoding 0x\(String(tag, radix: 16)) (only PCM)"
        case let .unsupportedBitsPerSample(bits): return "unsupported \(bits) bits per sample (only 16)"
        case let .unsupportedChannelCount(n): return "unsupported channel count \(n) (only 1 or 2)"
        case let .invalidSampleRate(rate): return "invalid sample rate \(rate)"
        case .inconsistentFormat: return "block align or byte rate inconsistent with the format"
        case let .partialFrame(size): return "data chunk size \(size) is not a whole number of frames"
        case .tooLarge: return "audio exceeds the 4 GiB RIFF limit"
        case let .io(errno, operation, path): return "\(operation) \(path) failed: errno \(errno)"
        }
    }
}

extension AudioDeviceError {
    /// Wraps a WAV error as a device ``AudioDeviceError/Kind/fileError``.
    init(_ error: WAVFileError) {
        let code: Int32
        if case let .io(errno, _, _) = error { code = errno } else { code = 0 }
        self.init(kind: .fileError, code: code, message: error.description)
    }
}
