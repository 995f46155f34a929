/// What a DTLS association asks its driver to do.
package enum DTLSAction: Sendable, Equatable {
    /// Send this datagram to the peer, on the stream's selected path.
    case send([UInt8])
    /// The handshake finished and the peer's certificate matched its SDP fingerprint: protect
    /// media with these keys.
    case connected(DTLSSRTPKeys)
    /// The association failed; media cannot be keyed (the call fails with a DTLS error).
    case failed(DTLSError)
    /// The peer closed the association (close_notify): it ended the media session.
    case closed
}

/// The association's state.
package enum DTLSAssociationState: Sendable, Equatable {
    /// Made, not started, nothing received.
    case idle
    /// Handshake messages are being exchanged.
    case handshaking
    /// The handshake finished but the peer's fingerprint is not known yet (the answer has not
    /// arrived): keys are held back until ``DTLSAssociation/setRemoteFingerprints(_:now:)``.
    case awaitingFingerprint
    /// Keys are out.
    case connected(DTLSSRTPKeys)
    /// The peer sent close_notify, or we did.
    case closed
    /// It failed.
    case failed(DTLSError)
}
