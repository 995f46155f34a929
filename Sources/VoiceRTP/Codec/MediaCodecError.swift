import VoiceMediaTypes
import VoiceSupport
/// Why a media encoder or decoder could not be made or could not process a frame.
package enum MediaCodecError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The codec library failed (libopus, the sample-rate converter): its name, return code and
    /// explanation.
    case library(name: String, code: Int32, message: String)
    /// The packetization time is not one of ``MediaCodec/supportedPtimes``.
    case unsupportedPtime(Int)
    /// The input frame does not hold one packetization time of 48 kHz samples.
    case frameSizeMismatch(expected: Int, actual: Int)
    /// The destination buffer is too small.
    case bufferTooSmall(needed: Int, available: Int)
    /// The payload cannot be decoded (e.g. empty).
    case invalidPayload

    /// A human-readable explanation.
    package var description: String {
        switch self {
        case .library(_, _, let message): "codec: \(message)"
        case .unsupportedPtime(let p): "codec: unsupported ptime \(p) ms (supported: 10, 20, 40, 60)"
        case .frameSizeMismatch(let expected, let actual): "codec: frame has \(actual) samples, expected \(expected)"
        case .bufferTooSmall(let needed, let available): "codec: buffer holds \(available), needs \(needed)"
        case .invalidPayload: "codec: invalid payload"
        }
    }
}
