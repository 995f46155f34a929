extension ByteWriter {
    /// Writes a little-endian 16-bit integer (RIFF/WAV byte order).
    package mutating func writeLE(_ v: UInt16) throws(Error) {
        try write(v.byteSwapped)
    }

    /// Writes a little-endian 32-bit integer (RIFF/WAV byte order).
    package mutating func writeLE(_ v: UInt32) throws(Error) {
        try write(v.byteSwapped)
    }
}
