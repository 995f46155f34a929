import Foundation

/// SASLprep (RFC 4013), the stringprep profile STUN applies to passwords (RFC 5389 §15.4):
/// characters mapped to nothing are removed (RFC 3454 table B.1: the soft hyphen, zero-width
/// joiners, variation selectors…), non-ASCII spaces become U+0020, the result is NFKC-normalized,
/// and control, private-use, surrogate and other prohibited characters refuse the string.
/// Bidirectional checks (RFC 3454 §6) are not made: a password mixing right-to-left and
/// left-to-right text passes as is.
package enum SASLprep {
    /// Table B.1: mapped to nothing.
    private static let mappedToNothing: Set<UInt32> = [
        0x00AD, 0x034F, 0x1806, 0x180B, 0x180C, 0x180D, 0x200B, 0x200C, 0x200D, 0x2060,
        0xFE00, 0xFE01, 0xFE02, 0xFE03, 0xFE04, 0xFE05, 0xFE06, 0xFE07, 0xFE08, 0xFE09,
        0xFE0A, 0xFE0B, 0xFE0C, 0xFE0D, 0xFE0E, 0xFE0F, 0xFEFF,
    ]
    /// Table C.1.2: non-ASCII spaces, mapped to U+0020.
    private static let nonASCIISpaces: Set<UInt32> = [
        0x00A0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007,
        0x2008, 0x2009, 0x200A, 0x200B, 0x202F, 0x205F, 0x3000,
    ]

    /// The prepared string.
    /// - Throws: ``STUNError/badCredentials`` when a prohibited character remains.
    package static func prepare(_ string: String) throws(STUNError) -> String {
        var mapped = String.UnicodeScalarView()
        for scalar in string.unicodeScalars {
            if mappedToNothing.contains(scalar.value) { continue }
            mapped.append(nonASCIISpaces.contains(scalar.value) ? " " : scalar)
        }
        let normalized = String(mapped).precomposedStringWithCompatibilityMapping
        if normalized.unicodeScalars.contains(where: { isProhibited($0.value) }) { throw .badCredentials }
        return normalized
    }

    /// Tables C.2.1–C.9 (control characters, private use, non-characters, surrogates,
    /// inappropriate for plain text or canonical representation, change display properties,
    /// tagging), by range.
    private static func isProhibited(_ v: UInt32) -> Bool {
        switch v {
        case 0x0000...0x001F, 0x007F, 0x0080...0x009F: true  // C.2.1, C.2.2
        case 0x06DD, 0x070F, 0x180E, 0x200C, 0x200D, 0x2028, 0x2029, 0x2060...0x2063, 0x206A...0x206F, 0xFEFF: true
        case 0xFFF9...0xFFFC, 0x1D173...0x1D17A: true
        case 0xE000...0xF8FF, 0xF0000...0xFFFFD, 0x100000...0x10FFFD: true  // C.3 private use
        case 0xFDD0...0xFDEF: true  // C.4 non-characters
        case _ where v & 0xFFFE == 0xFFFE: true  // C.4: U+xxFFFE and U+xxFFFF
        case 0xD800...0xDFFF: true  // C.5 surrogates
        case 0xFFF9...0xFFFD: true  // C.6
        case 0x2FF0...0x2FFB: true  // C.7
        case 0x0340, 0x0341, 0x200E, 0x200F, 0x202A...0x202E, 0x206A...0x206F: true  // C.8
        case 0xE0001, 0xE0020...0xE007F: true  // C.9 tagging
        default: false
        }
    }
}
