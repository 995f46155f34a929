/// ITU-T G.711 companding: μ-law (PCMU) and A-law (PCMA), bit-exact with the ITU-T G.191
/// reference implementation.
///
/// Linear samples are 16-bit, left-justified (the full Int16 range); μ-law uses the 14 most
/// significant bits and A-law the 13 most significant bits, as G.711 specifies. Buffer methods
/// write into caller memory and allocate nothing. Stateless and thread-safe.
package enum G711: Sendable {
    /// μ-law code of one linear sample (G.711 §3, Table 2).
    @inlinable
    package static func ulaw(fromLinear sample: Int16) -> UInt8 {
        // One's complement of negatives, as in the G.191 reference, then 14-bit magnitude.
        let negative = sample < 0
        var magnitude = Int32(negative ? ~sample : sample) >> 2
        magnitude += 33
        if magnitude > 0x1FFF { magnitude = 0x1FFF }
        var segment: Int32 = 1
        var i = magnitude >> 6
        while i != 0 {
            segment += 1
            i >>= 1
        }
        let high = 8 - segment
        let low = 0xF - ((magnitude >> segment) & 0xF)
        var code = (high << 4) | low
        if !negative { code |= 0x80 }
        return UInt8(truncatingIfNeeded: code)
    }

    /// Linear value of one μ-law code (the centre of its quantisation interval).
    @inlinable
    package static func linear(fromULaw code: UInt8) -> Int16 {
        let inverted = Int32(~code)
        let exponent = (inverted >> 4) & 0x7
        let mantissa = inverted & 0xF
        let step = Int32(4) << (exponent + 1)
        let magnitude = (Int32(0x80) << exponent) + step * mantissa + step / 2 - 4 * 33
        return Int16(truncatingIfNeeded: code < 0x80 ? -magnitude : magnitude)
    }

    /// A-law code of one linear sample (G.711 §2, Table 1), even bits toggled.
    @inlinable
    package static func alaw(fromLinear sample: Int16) -> UInt8 {
        let negative = sample < 0
        var ix = Int32(negative ? ~sample : sample) >> 4
        if ix > 15 {
            var exponent: Int32 = 1
            while ix > 16 + 15 {
                ix >>= 1
                exponent += 1
            }
            ix -= 16
            ix += exponent << 4
        }
        if !negative { ix |= 0x80 }
        return UInt8(truncatingIfNeeded: ix ^ 0x55)
    }

    /// Linear value of one A-law code (the centre of its quantisation interval).
    @inlinable
    package static func linear(fromALaw code: UInt8) -> Int16 {
        let ix = Int32(code ^ 0x55) & 0x7F
        let exponent = ix >> 4
        var mantissa = ix & 0xF
        if exponent > 0 { mantissa += 16 }
        mantissa = (mantissa << 4) + 8
        if exponent > 1 { mantissa <<= exponent - 1 }
        return Int16(truncatingIfNeeded: code > 127 ? mantissa : -mantissa)
    }
}
