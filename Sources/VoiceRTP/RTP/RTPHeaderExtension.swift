/// The RTP header extension (RFC 3550 §5.3.1): a 16-bit profile word and data that is a
/// whole number of 32-bit words.
///
/// RFC 8285 one-byte (profile `0xBEDE`) and two-byte (profile `0x100x`) element forms are
/// built with ``oneByte(_:)`` / ``twoByte(_:appBits:)`` and read back with ``elements()``.
package struct RTPHeaderExtension: Hashable, Sendable {
    /// The profile-defined 16-bit identifier (`0xBEDE` for RFC 8285 one-byte elements).
    package var profile: UInt16
    /// Extension data, excluding the 4-byte profile/length word; a multiple of 4 bytes to be written.
    package var data: [UInt8]

    /// Creates an extension from a profile word and raw data.
    package init(profile: UInt16, data: [UInt8]) {
        self.profile = profile
        self.data = data
    }

    /// The RFC 8285 one-byte header profile.
    package static let oneByteProfile: UInt16 = 0xBEDE
    /// The RFC 8285 two-byte header profile with zero app bits; the low 4 bits carry app bits.
    package static let twoByteProfile: UInt16 = 0x1000

    /// The RFC 8285 form this extension's profile selects, if any.
    package var elementForm: RTPHeaderExtensionElement.Form? {
        RTPHeaderExtensionElement.Form(profile: profile)
    }
}

/// One RFC 8285 header extension element: a local identifier and its data.
package struct RTPHeaderExtensionElement: Hashable, Sendable {
    /// Which RFC 8285 element encoding an extension uses.
    package enum Form: Hashable, Sendable {
        /// One-byte headers: ID 1-14, 1-16 data bytes.
        case oneByte
        /// Two-byte headers: ID 1-255, 0-255 data bytes.
        case twoByte

        /// The form selected by an extension profile word, or nil for other profiles.
        @inlinable package init?(profile: UInt16) {
            if profile == RTPHeaderExtension.oneByteProfile {
                self = .oneByte
            } else if profile & 0xFFF0 == RTPHeaderExtension.twoByteProfile {
                self = .twoByte
            } else {
                return nil
            }
        }
    }

    /// The local identifier negotiated in SDP (`a=extmap`).
    package var id: UInt8
    /// The element's data.
    package var data: [UInt8]

    /// Creates an element.
    package init(id: UInt8, data: [UInt8]) {
        self.id = id
        self.data = data
    }
}
