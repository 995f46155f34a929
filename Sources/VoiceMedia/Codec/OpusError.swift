import COpus
import VoiceRTP
import VoiceSupport

/// A libopus failure, wrapping one of its `OPUS_*` status codes.
///
/// Cases may grow with libopus, so this is a struct with `static let` values rather than an
/// enum; compare against the constants (`error == .invalidPacket`).
package struct OpusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The libopus status code (always negative).
    package let code: Int32

    /// Wraps a libopus status code.
    package init(code: Int32) { self.code = code }

    /// One or more invalid or out-of-range arguments (`OPUS_BAD_ARG`); also thrown for frame
    /// sizes, sample rates and channel counts this API does not accept.
    package static let badArgument = OpusError(code: OPUS_BAD_ARG)
    /// Not enough bytes allocated in the output buffer (`OPUS_BUFFER_TOO_SMALL`).
    package static let bufferTooSmall = OpusError(code: OPUS_BUFFER_TOO_SMALL)
    /// An internal libopus error (`OPUS_INTERNAL_ERROR`).
    package static let internalError = OpusError(code: OPUS_INTERNAL_ERROR)
    /// The compressed data is corrupted or empty (`OPUS_INVALID_PACKET`).
    package static let invalidPacket = OpusError(code: OPUS_INVALID_PACKET)
    /// The request number is not implemented (`OPUS_UNIMPLEMENTED`).
    package static let unimplemented = OpusError(code: OPUS_UNIMPLEMENTED)
    /// An encoder or decoder structure is invalid or already freed (`OPUS_INVALID_STATE`).
    package static let invalidState = OpusError(code: OPUS_INVALID_STATE)
    /// Memory allocation failed (`OPUS_ALLOC_FAIL`).
    package static let allocFail = OpusError(code: OPUS_ALLOC_FAIL)

    /// libopus's own text for the code (`opus_strerror`).
    package var description: String {
        guard let text = opus_strerror(code) else { return "opus error \(code)" }
        return "opus: \(String(cString: text)) (\(code))"
    }

    /// Turns a libopus return value into a typed error: negative values throw, others are
    /// returned unchanged (byte or sample counts). The one place C codes become errors.

    static func check(_ rc: Int32) throws(OpusError) -> Int {
        guard rc >= 0 else { throw OpusError(code: rc) }
        return Int(rc)
    }
}

extension MediaCodecError {
    /// libopus failed.
    package static func opus(_ error: OpusError) -> MediaCodecError {
        .library(name: "opus", code: error.code, message: error.description)
    }
}
