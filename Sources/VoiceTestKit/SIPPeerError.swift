/// Why a SIP interop peer (baresip, Kamailio) could not be prepared, started or reached.
public struct SIPPeerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as a closed set of kinds.
    public enum Kind: Hashable, Sendable {
        /// The peer's binary is not on `PATH` (or at the given path).
        case notInstalled
        /// The process could not be launched.
        case launchFailed
        /// The process exited before it answered.
        case exitedEarly
        /// The process did not answer an OPTIONS request in time.
        case notReady
        /// A configuration template was missing, unreadable, or left a placeholder unfilled.
        case invalidTemplate
        /// A configuration value would break the file it goes into (quotes, newlines, ...).
        case invalidValue
        /// A file or directory could not be written.
        case fileSystem
        /// A socket operation failed or no free port was found.
        case socket
    }

    /// The kind of failure.
    public let kind: Kind
    /// Details for the test log: paths, ports, the log's last lines.
    public let detail: String

    /// Creates an error of `kind` with `detail`.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "SIP peer \(kind): \(detail)" }
}
