/// `value`'s bytes, most significant first: the value of a fixed-size STUN attribute.
func bigEndianBytes(_ value: some FixedWidthInteger) -> [UInt8] {
    (0..<(value.bitWidth / 8)).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
}
