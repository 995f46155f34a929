import VoiceMedia
import VoiceMediaPath

// WebRTC media (ICE + DTLS-SRTP): a path that cannot be made, or is torn down by the peer,
// ends the call with Twilio's codes: 53407 for the DTLS handshake, 53405 for the rest.
extension CallCore {
    /// ICE selected a path and DTLS keyed it: the media runs (the call connects, if answered).
    func mediaPathConnected(path: String, security: String) {
        guard let media, !machine.isDisconnected else { return }
        client.logger.debug("media path for \(sid): \(path), \(security)")
        mediaStarted(media)
    }

    /// Consent freshness (RFC 7675): lost, our media stopped and the call is reconnecting
    /// (53405 if it does not come back); restored, it recovers.
    func mediaPathConsent(lost: Bool) {
        guard !machine.isDisconnected else { return }
        if lost { client.logger.warning("media path for \(sid): the peer's consent is lost; our media stopped") }
        run(lost ? machine.mediaPathLost(now: now) : machine.mediaPathRestored(now: now))
    }

    func mediaPathFailed(_ why: MediaPathFailure) {
        guard !machine.isDisconnected else { return }
        client.logger.error("media path for \(sid) failed: \(why)")
        let error: VoiceError
        switch why {
        case .dtls: error = VoiceError(.mediaDtlsTransportFailed, failureReason: why.description)
        case .iceFailed, .noCandidatePair: error = .mediaConnectionFailed(why.description)
        }
        mediaFailure = why.description
        run(machine.mediaFailed(stateError(error), now: now))
    }
}
