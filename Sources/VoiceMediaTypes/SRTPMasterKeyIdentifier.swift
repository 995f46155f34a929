/// A master key identifier (MKI, RFC 3711 §3.1): a number carried in `length` bytes after each
/// protected packet so the receiver can tell which master key was used.
package struct SRTPMasterKeyIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The identifier's value.
    package let value: UInt64
    /// Bytes the MKI occupies on the wire, 1...128.
    package let length: Int

    /// Largest MKI length libsrtp accepts (`SRTP_MAX_MKI_LEN`), also RFC 4568's limit.
    package static let maxLength = 128

    /// Creates an MKI, or nil when `length` is outside 1...128 or `value` does not fit in `length` bytes.
    package init?(value: UInt64, length: Int) {
        guard (1...Self.maxLength).contains(length) else { return nil }
        if length < 8, value >> (8 * UInt64(length)) != 0 { return nil }
        self.value = value
        self.length = length
    }

    /// The MKI as it appears on the wire: `value` big-endian, left-padded with zeros to `length` bytes.
    package var bytes: [UInt8] {
        (0..<length).map { i in
            let shift = 8 * (length - 1 - i)
            return shift < 64 ? UInt8(truncatingIfNeeded: value >> UInt64(shift)) : 0
        }
    }

    /// The RFC 4568 `mki-value:mki-length` form, e.g. `1:4`.
    package var description: String { "\(value):\(length)" }
}
