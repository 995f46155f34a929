#if canImport(Glibc)
    import Glibc
#endif
import VoiceBytes
import VoiceSupport

/// Streams 16-bit PCM to a WAV file on disk, patching the RIFF and data sizes on ``close()``.
///
/// Threading: not thread-safe; one thread appends at a time. ``append(_:)`` does not allocate
/// (samples go straight to the file on little-endian hosts, through a fixed scratch buffer otherwise).
package final class WAVFileWriter {
    /// Frames per second written in the header.
    package let sampleRate: Int
    /// Channels written in the header.
    package let channels: Int
    /// Path of the file being written.
    package var path: String { file.path }
    /// Samples (all channels) appended so far.
    package private(set) var samplesWritten: Int = 0
    /// Frames appended so far.
    package var framesWritten: Int { samplesWritten / channels }

    private let file: POSIXFile
    private var isClosed = false
    private let scratch: UnsafeMutableBufferPointer<UInt16>
    private static let scratchCount = 4096
    private static let maxDataBytes = Int(UInt32.max) - WAVFile.canonicalHeaderSize

    /// Creates (or truncates) `path` and writes a header with zero sizes.
    ///
    /// - Throws: ``WAVFileError/unsupportedChannelCount(_:)``, ``WAVFileError/invalidSampleRate(_:)``, or an I/O error.
    package init(path: String, sampleRate: Int, channels: Int) throws(WAVFileError) {
        guard channels == 1 || channels == 2 else { throw WAVFileError.unsupportedChannelCount(UInt16(truncatingIfNeeded: channels)) }
        guard sampleRate > 0, sampleRate <= Int(WAVFile.maxSampleRate) else {
            throw WAVFileError.invalidSampleRate(UInt32(truncatingIfNeeded: sampleRate))
        }
        self.sampleRate = sampleRate
        self.channels = channels
        self.file = try POSIXFile(creating: path)
        self.scratch = .allocate(capacity: Self.scratchCount)
        try writeHeader(dataBytes: 0, patching: false)
    }

    deinit {
        try? close()
        scratch.deallocate()
    }

    /// Appends interleaved samples.
    ///
    /// - Throws: ``WAVFileError/tooLarge`` once the file would pass 4 GiB (nothing is written), or an I/O error.
    package func append(_ samples: UnsafeBufferPointer<Int16>) throws(WAVFileError) {
        guard !isClosed else { throw WAVFileError.io(errno: EBADF, operation: "append", path: path) }
        guard (samplesWritten + samples.count) * 2 <= Self.maxDataBytes else { throw WAVFileError.tooLarge }
        #if _endian(little)
            try file.write(UnsafeRawBufferPointer(samples))
        #else
            var start = 0
            while start < samples.count {
                let n = min(Self.scratchCount, samples.count - start)
                for i in 0..<n { scratch[i] = UInt16(bitPattern: samples[start + i]).littleEndian }
                try file.write(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: scratch[0..<n])))
                start += n
            }
        #endif
        samplesWritten += samples.count
    }

    /// Patches the header sizes and closes the file. Idempotent.
    package func close() throws(WAVFileError) {
        guard !isClosed else { return }
        isClosed = true
        defer { file.close() }
        try writeHeader(dataBytes: UInt32(samplesWritten * 2), patching: true)
    }

    private func writeHeader(dataBytes: UInt32, patching: Bool) throws(WAVFileError) {
        var header = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))  // 48 bytes, no heap
        let written = withUnsafeMutableBytes(of: &header) { raw in
            Result { () throws(WAVFileError) in
                let bytes = UnsafeMutableRawBufferPointer(rebasing: raw[0..<WAVFile.canonicalHeaderSize])
                var writer = ByteWriter(bytes)
                WAVFile.writeCanonicalHeader(into: &writer, sampleRate: sampleRate, channels: channels, dataBytes: dataBytes)
                if patching {
                    try file.write(UnsafeRawBufferPointer(bytes), at: 0)
                } else {
                    try file.write(UnsafeRawBufferPointer(bytes))
                }
            }
        }
        try written.get()
    }
}

@available(*, unavailable)
extension WAVFileWriter: Sendable {}
