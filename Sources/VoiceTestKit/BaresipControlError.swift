/// Why a command to baresip's `ctrl_tcp` interface failed or an awaited event did not come.
package struct BaresipControlError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as a closed set of kinds.
    package enum Kind: Hashable, Sendable {
        /// The TCP connection to `ctrl_tcp_listen` could not be made in time.
        case connectFailed
        /// Nothing (no response, no matching event) arrived before the timeout.
        case timeout
        /// The connection is closed: by ``BaresipControl/close()``, by baresip, or after a framing error.
        case closed
        /// A netstring frame was malformed or over ``BaresipControlNetstring/maximumPayloadSize``.
        case framing
        /// A frame held no JSON object, or one that is neither a response nor an event.
        case malformedMessage
        /// baresip answered `"ok": false` (unknown command, no call for an in-call command, ...).
        case commandFailed
        /// An argument would not fit the command line baresip builds (too long, unsafe characters).
        case invalidArgument
        /// A socket call failed.
        case socket
    }

    /// The kind of failure.
    package let kind: Kind
    /// Details for the test log: the command, baresip's answer, the events seen.
    package let detail: String

    /// Creates an error of `kind` with `detail`.
    package init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    package var description: String { "baresip control \(kind): \(detail)" }
}
