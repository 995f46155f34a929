/// The DTLS-SRTP side of a negotiated stream (RFC 5763, RFC 8842): which end opens the
/// association, and the certificate the peer must present.
package struct SDPNegotiatedDTLS: Hashable, Sendable {
    /// Whether we are the DTLS client (we send the ClientHello): our `a=setup` said `active`, or
    /// the peer's said `passive`. Kept for the life of the session once negotiated.
    package var isClient: Bool
    /// The peer's `a=fingerprint` values with a SHA-1 or SHA-2 hash, in order: its certificate
    /// must match one of them (aiortc lists several hash functions).
    package var remoteFingerprints: [SDPFingerprint]

    /// Creates a result.
    package init(isClient: Bool, remoteFingerprints: [SDPFingerprint]) {
        self.isClient = isClient
        self.remoteFingerprints = remoteFingerprints
    }
}
