extension ByteReader {
    /// Reads a little-endian 16-bit integer (RIFF/WAV byte order) and advances.
    package mutating func readUInt16LE() throws(Error) -> UInt16 {
        try readUInt16().byteSwapped
    }

    /// Reads a little-endian 32-bit integer (RIFF/WAV byte order) and advances.
    package mutating func readUInt32LE() throws(Error) -> UInt32 {
        try readUInt32().byteSwapped
    }
}
