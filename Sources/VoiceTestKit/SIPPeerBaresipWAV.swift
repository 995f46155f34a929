import Foundation

/// 16-bit PCM WAV files as baresip's `aufile` source reads them and its `sndfile` filter writes them.
public enum BaresipWAVFile {
    /// The largest file read (about 10 minutes of 48 kHz stereo).
    public static let maximumFileSize = 128 * 1024 * 1024

    /// Decoded audio: interleaved samples.
    public struct Audio: Hashable, Sendable {
        /// Samples per second.
        public var sampleRate: Int
        /// Channels, interleaved in ``samples``.
        public var channels: Int
        /// The samples, channel-interleaved.
        public var samples: [Int16]

        /// Creates audio.
        public init(sampleRate: Int, channels: Int, samples: [Int16]) {
            self.sampleRate = sampleRate
            self.channels = channels
            self.samples = samples
        }

        /// The first channel alone.
        public var firstChannel: [Int16] {
            guard channels > 1 else { return samples }
            return stride(from: 0, to: samples.count, by: channels).map { samples[$0] }
        }
    }

    /// Writes mono 48 kHz `samples` as the 48 kHz stereo file `aufile` needs for an Opus call
    /// (each sample on both channels).
    public static func write(_ samples: [Int16], to path: String) throws(SIPPeerError) {
        var stereo: [Int16] = []
        stereo.reserveCapacity(samples.count * 2)
        for sample in samples { stereo += [sample, sample] }
        try write(Audio(sampleRate: 48_000, channels: 2, samples: stereo), to: path)
    }

    /// Writes `audio` as a canonical 44-byte-header PCM WAV file.
    public static func write(_ audio: Audio, to path: String) throws(SIPPeerError) {
        let dataSize = audio.samples.count * 2
        var bytes: [UInt8] = []
        bytes.reserveCapacity(44 + dataSize)
        func append32(_ value: Int) { bytes += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func append16(_ value: Int) { bytes += (0..<2).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        bytes += Array("RIFF".utf8); append32(36 + dataSize); bytes += Array("WAVE".utf8)
        bytes += Array("fmt ".utf8); append32(16); append16(1); append16(audio.channels)
        append32(audio.sampleRate); append32(audio.sampleRate * audio.channels * 2); append16(audio.channels * 2); append16(16)
        bytes += Array("data".utf8); append32(dataSize)
        for sample in audio.samples { append16(Int(sample)) }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw SIPPeerError(.fileSystem, "cannot write \(path)")
        }
    }

    /// Reads a 16-bit PCM WAV file. A `data` chunk whose size field is 0 or too large (a file
    /// still being written, or not finalised because baresip was killed) is read to the end of the file.
    /// - Throws: ``SIPPeerError/Kind/fileSystem`` if unreadable or too large,
    ///   ``SIPPeerError/Kind/invalidValue`` if it is not 16-bit PCM WAV.
    public static func read(_ path: String) throws(SIPPeerError) -> Audio {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SIPPeerError(.fileSystem, "cannot read \(path)")
        }
        guard data.count <= maximumFileSize else {
            throw SIPPeerError(.fileSystem, "\(path) is \(data.count) bytes, over \(maximumFileSize)")
        }
        var reader = ChunkReader(bytes: Array(data))
        guard reader.readTag() == "RIFF", reader.readUInt32() != nil, reader.readTag() == "WAVE" else {
            throw SIPPeerError(.invalidValue, "\(path) is not a RIFF WAVE file")
        }
        var format: (channels: Int, rate: Int, bits: Int)?
        while let tag = reader.readTag(), let size = reader.readUInt32() {
            if tag == "fmt " {
                guard size >= 16, let codec = reader.readUInt16(), let channels = reader.readUInt16(),
                    let rate = reader.readUInt32(), reader.skip(6), let bits = reader.readUInt16(), reader.skip(size - 16)
                else { throw SIPPeerError(.invalidValue, "\(path): truncated fmt chunk") }
                guard codec == 1, bits == 16, (1...8).contains(channels), rate > 0 else {
                    throw SIPPeerError(.invalidValue, "\(path): not 16-bit PCM (format \(codec), \(bits) bits, \(channels) channels)")
                }
                format = (channels, rate, bits)
            } else if tag == "data" {
                guard let format else { throw SIPPeerError(.invalidValue, "\(path): data before fmt") }
                let available = reader.remaining
                let length = (size == 0 || size > available) ? available : size
                var samples: [Int16] = []
                samples.reserveCapacity(length / 2)
                for _ in 0..<(length / 2) {
                    guard let value = reader.readUInt16() else { break }
                    samples.append(Int16(bitPattern: UInt16(value)))
                }
                return Audio(sampleRate: format.rate, channels: format.channels, samples: samples)
            } else {
                guard reader.skip(size + size % 2) else { break }
            }
        }
        throw SIPPeerError(.invalidValue, "\(path): no data chunk")
    }

    /// A little-endian cursor over the file; it only moves forward.
    private struct ChunkReader {
        let bytes: [UInt8]
        var position = 0

        var remaining: Int { bytes.count - position }

        mutating func skip(_ count: Int) -> Bool {
            guard count >= 0, remaining >= count else { return false }
            position += count
            return true
        }

        mutating func readTag() -> String? {
            guard remaining >= 4 else { return nil }
            defer { position += 4 }
            return String(decoding: bytes[position..<(position + 4)], as: UTF8.self)
        }

        mutating func readUInt16() -> Int? {
            guard remaining >= 2 else { return nil }
            defer { position += 2 }
            return Int(bytes[position]) | Int(bytes[position + 1]) << 8
        }

        mutating func readUInt32() -> Int? {
            guard remaining >= 4 else { return nil }
            defer { position += 4 }
            return (0..<4).reduce(0) { $0 | Int(bytes[position + $1]) << (8 * $1) }
        }
    }
}
