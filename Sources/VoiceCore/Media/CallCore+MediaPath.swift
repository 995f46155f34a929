import VoiceMedia

// WebRTC media (ICE + DTLS-SRTP): a path that cannot be made, or is torn down by the peer,
// ends the call with Twilio's codes: 53407 for the DTLS handshake, 53405 for the rest.
extension CallCore {
    func mediaPathFailed(_ why: MediaPathFailure) {
        guard !machine.isDisconnected else { return }
        client.logger.error("media path for \(sid) failed: \(why)")
        let error: VoiceError
        switch why {
        case .dtls: error = VoiceError(.mediaDtlsTransportFailed, failureReason: why.description)
        case .iceFailed, .closedByPeer: error = .mediaConnectionFailed(why.description)
        }
        mediaFailure = why.description
        run(machine.mediaFailed(stateError(error), now: now))
    }
}
