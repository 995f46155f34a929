/// How a call or a conference room is recorded.
public struct AudioRecordingOptions: Sendable, Hashable {
    /// The file's format: 16-bit PCM WAV, or Ogg Opus (RFC 7845, about a tenth of the size).
    public enum Format: Sendable, Hashable {
        case wav
        case oggOpus
    }
    /// A call's two directions in two channels (left: what this side sent, right: what it
    /// received) or mixed into one. A room's mix is always one channel.
    public enum Layout: Sendable, Hashable {
        case stereo
        case mixed
    }
    public var format: Format
    public var layout: Layout

    /// Options for `path`: Ogg Opus for a name ending in `.opus` or `.ogg`, else WAV; stereo.
    public init(path: String, layout: Layout = .stereo) {
        let lowercased = path.lowercased()
        format = lowercased.hasSuffix(".opus") || lowercased.hasSuffix(".ogg") ? .oggOpus : .wav
        self.layout = layout
    }

    public init(format: Format = .wav, layout: Layout = .stereo) {
        self.format = format
        self.layout = layout
    }
}

/// Why a recording could not start or stopped early. The call goes on either way.
public struct AudioRecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The file could not be created (a missing directory, no permission).
        case cannotCreateFile
        /// Writing failed (a full disk): the recording stopped there.
        case writeFailed
        /// The call or room is already being recorded, or has no media to record yet.
        case unavailable
    }
    public let kind: Kind
    public let path: String
    public let reason: String

    package init(_ kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    public var description: String { "recording to \(path): \(kind): \(reason)" }
}

/// What a finished recording holds: how long it is, the samples dropped because the writer
/// fell behind (never hidden), and the error that ended it early, if one did.
public struct AudioRecordingSummary: Sendable, Hashable {
    public let path: String
    public let seconds: Double
    public let droppedSamples: Int
    public let error: AudioRecordingError?
}
