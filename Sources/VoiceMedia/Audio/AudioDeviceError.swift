/// Why an audio device could not open or keep running.
public struct AudioDeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: Hashable, Sendable {
        /// The named device does not exist or could not be opened.
        case openFailed
        /// The device refused the requested format.
        case unsupportedFormat
        /// Reading or writing failed and could not be recovered.
        case ioFailed
        /// A file could not be read, written, or is not a supported WAV.
        case fileError
        /// The device is already started.
        case alreadyStarted
    }
    /// What went wrong.
    public var kind: Kind
    /// The underlying library's code (ALSA negative errno), if any.
    public var code: Int32
    /// A human-readable explanation.
    public var message: String

    /// Creates an error; `code` is the library's return code (0 if none).
    public init(kind: Kind, code: Int32 = 0, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }
    /// Kind, message and code, for logs.
    public var description: String { "audio device \(kind): \(message)" + (code != 0 ? " (\(code))" : "") }
}
