import VoiceSupport
/// The error a ``CallStateMachine`` reports: a Twilio-style error code (20101…53407) and a message.
///
/// A small stand-in that the call object maps to the public error type; the machine itself only
/// creates ``mediaConnectionError``, ``signalingConnectionDisconnected`` and ``callCancelled``,
/// and passes any other error through unchanged.
package struct CallStateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The numeric error code, e.g. 53405.
    package var code: Int
    /// A human-readable description of the error.
    package var message: String

    /// Creates an error with a code and a message.
    package init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    /// 53405: media stopped arriving and did not resume in time.
    package static let mediaConnectionError = CallStateError(code: 53405, message: "Media connection failed")
    /// 53001: the signaling connection was lost and could not be re-established.
    package static let signalingConnectionDisconnected = CallStateError(
        code: 53001, message: "Signaling connection disconnected")
    /// 31008: the call was ended by the remote side before it was connected.
    package static let callCancelled = CallStateError(code: 31008, message: "Call Cancelled")

    /// 31480: nobody answered the outgoing call before its ring timeout.
    package static func noAnswer(after timeout: MediaTime) -> CallStateError {
        CallStateError(code: 31480, message: "No answer within \(timeout.nanoseconds / 1_000_000_000) s")
    }

    /// `"<code>: <message>"`.
    package var description: String { "\(code): \(message)" }
}
