/// Which side of the DTLS handshake this end takes. SDP's `a=setup` decides it (RFC 4145,
/// RFC 5763 §5): `active` is the client, `passive` the server; an offer says `actpass` and the
/// answer picks.
package enum DTLSRole: Sendable, Hashable {
    /// Sends the ClientHello (`a=setup:active`).
    case client
    /// Waits for it (`a=setup:passive`).
    case server
}
