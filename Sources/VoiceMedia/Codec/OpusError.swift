import COpus
import VoiceSupport

/// A libopus failure, wrapping one of its `OPUS_*` status codes.
///
/// Cases may grow with libopus, so this is a struct with `static let` values rather than an
/// enum; compare against the constants (`error == .invalidPacket`).
public struct OpusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The libopus status code (always negative).
    public let code: Int32

    /// Wraps a libopus status code.
    public init(code: Int32) { self.code = code }

    /// One or more invalid or out-of-range arguments (`OPUS_BAD_ARG`); also thrown for frame
    /// sizes, sample rates and channel counts this API does not accept.
    public static let badArgument = OpusError(code: OPUS_BAD_ARG)
    /// Not enough bytes allocated in the output buffer (`OPUS_BUFFER_TOO_SMALL`).
    public static let bufferTooSmall = OpusError(code: OPUS_BUFFER_TOO_SMALL)
    /// An internal libopus error (`OPUS_INTERNAL_ERROR`).
    public static let internalError = OpusError(code: OPUS_INTERNAL_ERROR)
    /// The compressed data is corrupted or empty (`OPUS_INVALID_PACKET`).
    public static let invalidPacket = OpusError(code: OPUS_INVALID_PACKET)
    /// The request number is not implemented (`OPUS_UNIMPLEMENTED`).
    public static let unimplemented = OpusError(code: OPUS_UNIMPLEMENTED)
    /// An encoder or decoder structure is invalid or already freed (`OPUS_INVALID_STATE`).
    public static let invalidState = OpusError(code: OPUS_INVALID_STATE)
    /// Memory allocation failed (`OPUS_ALLOC_FAIL`).
    public static let allocFail = OpusError(code: OPUS_ALLOC_FAIL)

    /// libopus's own text for the code (`opus_strerror`).
    public var description: String {
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
