import VoiceBytes
import VoiceSupport
/// Why an RTP packet could not be parsed or written.
///
/// A struct over a private code so cases can be added without breaking callers; compare
/// against the `static let` values.
package struct RTPError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case truncated
        case badVersion
        case badPadding
        case badExtensionLength
        case badCSRCCount
        case badPayloadType
        case badExtensionElement
        case bufferTooSmall
    }

    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// Fewer bytes than the fixed header, CSRC list or extension header need.
    package static let truncated = RTPError(.truncated)
    /// The version field is not 2.
    package static let badVersion = RTPError(.badVersion)
    /// The P bit is set but the pad count is zero or larger than the bytes after the header.
    package static let badPadding = RTPError(.badPadding)
    /// The extension length runs past the packet, or extension data is not a whole number of 32-bit words.
    package static let badExtensionLength = RTPError(.badExtensionLength)
    /// The CSRC list runs past the packet, or more than 15 CSRCs were given to write.
    package static let badCSRCCount = RTPError(.badCSRCCount)
    /// The payload type is above 127, or the packet is an RTCP SR/RR/SDES/BYE/APP (RFC 5761).
    package static let badPayloadType = RTPError(.badPayloadType)
    /// An RFC 8285 extension element has an invalid ID or runs past the extension data.
    package static let badExtensionElement = RTPError(.badExtensionElement)
    /// The destination buffer is too small for what is being written.
    package static let bufferTooSmall = RTPError(.bufferTooSmall)

    /// A human-readable explanation.
    package var description: String {
        switch code {
        case .truncated: "RTP packet truncated"
        case .badVersion: "RTP version is not 2"
        case .badPadding: "RTP padding count is zero or exceeds the packet"
        case .badExtensionLength: "RTP header extension length is inconsistent"
        case .badCSRCCount: "RTP CSRC list is inconsistent"
        case .badPayloadType: "RTP payload type is invalid"
        case .badExtensionElement: "RTP header extension element is malformed"
        case .bufferTooSmall: "destination buffer too small for RTP packet"
        }
    }
}

extension RTPError {
    /// Maps a cursor read failure: inside an RTP packet every short read means truncation.
    init(_ error: ByteReader.Error) { self = .truncated }
    /// Maps a cursor write failure.
    init(_ error: ByteWriter.Error) { self = .bufferTooSmall }
}
