/// What a call is reconnecting from. Media and signaling recover independently.
package enum CallStateReconnectCause: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// No media arrived from the peer for longer than the silence threshold.
    case media
    /// The TCP/TLS signaling connection was lost.
    case signaling

    /// The error reported when the call starts reconnecting for this cause.
    package var error: CallStateError {
        switch self {
        case .media: .mediaConnectionError
        case .signaling: .signalingConnectionDisconnected
        }
    }

    /// `"media"` or `"signaling"`.
    package var description: String {
        switch self {
        case .media: "media"
        case .signaling: "signaling"
        }
    }
}
