import CALSA
import VoiceSupport

extension AudioDeviceError {
    /// Turns a negative ALSA return code into a typed error carrying `snd_strerror`'s text.
    static func alsa(_ code: Int32, kind: Kind, _ operation: String) -> AudioDeviceError {
        let text = snd_strerror(code).map { String(cString: $0) } ?? "unknown error"
        return AudioDeviceError(kind: kind, code: code, message: "\(operation): \(text)")
    }

    /// Returns `result` if it is not negative, otherwise throws ``alsa(_:kind:_:)`` for it.
    ///
    /// The one place ALSA return codes become typed errors; `operation` is only evaluated on failure.
    @discardableResult
    static func checkALSA<Result: BinaryInteger>(
        _ result: Result, kind: Kind, _ operation: @autoclosure () -> String
    ) throws(AudioDeviceError) -> Result {
        guard result < 0 else { return result }
        throw alsa(Int32(truncatingIfNeeded: result), kind: kind, operation())
    }
}
