#if canImport(Glibc)
    import Glibc
#endif
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
    /// Whether the failure may pass by itself, so a call waits for the device instead of failing:
    /// the device is busy (`EBUSY`, `EAGAIN`), went away (`ENODEV`, `ENXIO`, `EIO`, `EBADFD`:
    /// a USB headset unplugged), or its sound server is not reachable (`ECONNREFUSED`,
    /// `ECONNRESET`, `ENOTCONN`, `EHOSTDOWN`, `ESHUTDOWN`, `EPIPE`, `ESTRPIPE`). A missing PCM
    /// name (`ENOENT`), a refused format or an error without a code is not.
    public var isTransient: Bool { Self.transientCodes.contains(-code) }

    /// Positive errno values of ``isTransient``.
    static let transientCodes: Set<Int32> = [
        EBUSY, EAGAIN, ENODEV, ENXIO, EIO, EBADFD, ECONNREFUSED, ECONNRESET, ENOTCONN, EHOSTDOWN, ESHUTDOWN, EPIPE, ESTRPIPE,
    ]

    /// Kind, message and code, for logs.
    public var description: String { "audio device \(kind): \(message)" + (code != 0 ? " (\(code))" : "") }
}
