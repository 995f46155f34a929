/// A DTLS transport's state as WebRTC names it (W3C `RTCDtlsTransportState`).
package enum DTLSTransportState: String, Hashable, Sendable {
    /// Not started.
    case new
    /// The handshake runs.
    case connecting
    /// Keys are out.
    case connected
    /// Closed (close_notify sent or received).
    case closed
    /// The handshake or the keys failed.
    case failed
}
