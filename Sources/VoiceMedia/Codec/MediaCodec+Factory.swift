import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
extension MediaCodec {
    /// Makes an encoder for this codec that takes 48 kHz mono frames of `ptime` milliseconds.
    /// - Throws: ``MediaCodecError/unsupportedPtime(_:)`` unless `ptime` is 10, 20, 40 or 60;
    ///   ``MediaCodecError/opus(_:)`` for invalid Opus settings.
    package func makeEncoder(ptime: Int) throws(MediaCodecError) -> any MediaEncoder {
        switch self {
        case .opus(let settings): try OpusMediaEncoder(settings: settings, ptime: ptime)
        case .g722: try G722MediaEncoder(ptime: ptime)
        case .pcmu: try G711MediaEncoder(law: .ulaw, ptime: ptime)
        case .pcma: try G711MediaEncoder(law: .alaw, ptime: ptime)
        }
    }

    /// Makes a decoder for this codec that produces 48 kHz mono samples.
    package func makeDecoder() throws(MediaCodecError) -> any MediaDecoder {
        switch self {
        case .opus: try OpusMediaDecoder(codec: self)
        case .g722: try G722MediaDecoder()
        case .pcmu: try G711MediaDecoder(law: .ulaw)
        case .pcma: try G711MediaDecoder(law: .alaw)
        }
    }
}
