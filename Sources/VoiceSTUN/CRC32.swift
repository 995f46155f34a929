/// CRC-32 as Ethernet, zlib and STUN's FINGERPRINT (RFC 8489 §14.7) compute it: polynomial
/// 0x04C11DB7 reflected (0xEDB88320), initial value and final XOR 0xFFFFFFFF.
package enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The CRC-32 of `bytes`.
    package static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
