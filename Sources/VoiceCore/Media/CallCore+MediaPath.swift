import VoiceMedia

// WebRTC media (ICE + DTLS-SRTP): a path that cannot be made, or is torn down by the peer,
// ends the call with Twilio's codes: 53407 for the DTLS handshake, 53405 for the rest.
extension CallCore {
    /// ICE selected a path and DTLS keyed it: the media runs (the call connects, if answered).
    func mediaPathConnected(path: String, security: String) {
        guard let media, !machine.isDisconnected else { return }
        client.logger.debug("media path for \(sid): \(path), \(security)")
        mediaStarted(media)
    }

    func mediaPathFailed(_ why: MediaPathFailure) {
        guard !machine.isDisconnected else { return }
        client.logger.error("media path for \(sid) failed: \(why)")
        let error: VoiceError
        switch why {
        case .dtls: error = VoiceError(.mediaDtlsTransportFailed, failureReason: why.description)
        case .iceFailed: error = .mediaConnectionFailed(why.description)
        }
        mediaFailure = why.description
        run(machine.mediaFailed(stateError(error), now: now))
    }
}
