import CSpeexDSP
import VoiceRTP
import VoiceSupport

/// A speexdsp resampler failure, wrapping its `RESAMPLER_ERR_*` code.
package struct ResamplerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The speexdsp status code (positive), or a code from this API.
    package let code: Int32

    /// Wraps a speexdsp status code.
    package init(code: Int32) { self.code = code }

    /// Memory allocation failed (`RESAMPLER_ERR_ALLOC_FAILED`).
    package static let allocFailed = ResamplerError(code: Int32(RESAMPLER_ERR_ALLOC_FAILED))
    /// The resampler is in a bad state (`RESAMPLER_ERR_BAD_STATE`).
    package static let badState = ResamplerError(code: Int32(RESAMPLER_ERR_BAD_STATE))
    /// An argument is invalid: rate, channel count, quality (`RESAMPLER_ERR_INVALID_ARG`).
    package static let invalidArgument = ResamplerError(code: Int32(RESAMPLER_ERR_INVALID_ARG))
    /// Input and output buffers overlap (`RESAMPLER_ERR_PTR_OVERLAP`).
    package static let pointerOverlap = ResamplerError(code: Int32(RESAMPLER_ERR_PTR_OVERLAP))
    /// An internal length overflowed (`RESAMPLER_ERR_OVERFLOW`).
    package static let overflow = ResamplerError(code: Int32(RESAMPLER_ERR_OVERFLOW))

    /// speexdsp's own text for the code (`speex_resampler_strerror`).
    package var description: String {
        guard let text = speex_resampler_strerror(code) else { return "resampler error \(code)" }
        return "resampler: \(String(cString: text)) (\(code))"
    }

    /// Turns a speexdsp return code into a typed error. The one place its codes become errors.
    static func check(_ rc: Int32) throws(ResamplerError) {
        guard rc == Int32(RESAMPLER_ERR_SUCCESS) else { throw ResamplerError(code: rc) }
    }
}

extension MediaCodecError {
    /// The sample-rate converter failed.
    package static func resampler(_ error: ResamplerError) -> MediaCodecError {
        .library(name: "speexdsp resampler", code: error.code, message: error.description)
    }
}
