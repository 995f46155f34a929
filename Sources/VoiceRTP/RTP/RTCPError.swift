import VoiceBytes
import VoiceSupport
/// Why an RTCP packet could not be parsed or written.
///
/// A struct over a private code so cases can be added without breaking callers; compare
/// against the `static let` values.
package struct RTCPError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case truncated
        case badVersion
        case badPadding
        case badLength
        case badCount
        case badFirstPacket
        case badItem
        case empty
        case bufferTooSmall
    }

    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// A packet's header or body is shorter than its counts and lengths say.
    package static let truncated = RTCPError(.truncated)
    /// The version field is not 2.
    package static let badVersion = RTCPError(.badVersion)
    /// Padding on a packet that is not last in the compound, or a pad count of zero or larger than the body.
    package static let badPadding = RTCPError(.badPadding)
    /// A length field runs past the compound packet, or data to write is not a whole number of 32-bit words.
    package static let badLength = RTCPError(.badLength)
    /// More than 31 report blocks, chunks or SSRCs, or an APP subtype above 31.
    package static let badCount = RTCPError(.badCount)
    /// The compound packet does not start with an SR or RR (RFC 3550 §6.1, A.2).
    package static let badFirstPacket = RTCPError(.badFirstPacket)
    /// An SDES item has type 0 or is longer than 255 bytes, or a BYE reason is longer than 255 bytes.
    package static let badItem = RTCPError(.badItem)
    /// There are no packets.
    package static let empty = RTCPError(.empty)
    /// The destination buffer is too small.
    package static let bufferTooSmall = RTCPError(.bufferTooSmall)

    /// A human-readable explanation.
    package var description: String {
        switch code {
        case .truncated: "RTCP packet truncated"
        case .badVersion: "RTCP version is not 2"
        case .badPadding: "RTCP padding is misplaced or its count is inconsistent"
        case .badLength: "RTCP length is inconsistent"
        case .badCount: "RTCP count field out of range"
        case .badFirstPacket: "RTCP compound packet does not start with SR or RR"
        case .badItem: "RTCP SDES item or BYE reason is invalid"
        case .empty: "RTCP compound packet is empty"
        case .bufferTooSmall: "destination buffer too small for RTCP packet"
        }
    }
}

extension RTCPError {
    /// Maps a cursor read failure inside an RTCP packet body: the body is shorter than it claims.
    init(_ error: ByteReader.Error) { self = .truncated }
    /// Maps a cursor write failure.
    init(_ error: ByteWriter.Error) { self = .bufferTooSmall }
}
