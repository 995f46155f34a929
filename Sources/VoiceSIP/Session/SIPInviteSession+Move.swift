import VoiceSupport

// Our side of the call moves to a new address (the host changed networks).
extension SIPInviteSession {
    /// Our address changed: from now on requests and responses carry the new Contact and Via
    /// sent-by, and SDP the new `c=`. The peer learns it at once when it can:
    /// - a confirmed call sends a re-INVITE (a target refresh, RFC 3261 §12.2.1.1, with a new
    ///   offer). Its outcome comes as ``SIPInviteSessionEvent/mediaUpdated(_:)``, or as a
    ///   hold/resume failure, as for ``refresh(now:)``. While another INVITE transaction is in
    ///   progress the refresh waits for it (§14.1);
    /// - a call not yet confirmed sends that re-INVITE as soon as it is, unless the new address
    ///   reaches the peer anyway (a callee that has not answered yet answers with it).
    /// The dialog's identifiers, the SRTP keys and the `o=` session id stay.
    /// With `ice` (a DTLS-SRTP call), the re-INVITE restarts ICE with those credentials and candidates.
    package mutating func moveLocalAddress(
        contact: SIPURI, via: SIPVia, mediaAddress: String, ice: SDPICEParameters? = nil, now: MediaTime
    ) -> [SIPInviteSessionAction] {
        configuration.contact = contact
        configuration.via = via
        offerAnswer.moveLocalAddress(to: mediaAddress)
        if let ice { offerAnswer.restartICE(with: ice) }
        switch state {
        case .confirmed:
            guard !reinvitePending, pendingOK == nil, glareRetry == nil else {
                // The INVITE in progress carried the old address; a refresh follows it. A
                // scheduled glare retry builds its offer when it fires: it has the new one.
                if glareRetry == nil, queuedModification == nil { queuedModification = currentModification }
                return []
            }
            return refresh(now: now)
        case .terminating, .terminated:
            return []
        default:
            // A caller's offer (or a callee's answer already sent) had the old address.
            let peerHasOldAddress = role == .uac || pendingOK != nil
            if peerHasOldAddress, queuedModification == nil { queuedModification = currentModification }
            // A caller in an early dialog tells the callee its new Contact at once (RFC 3311):
            // without an offer, since the INVITE's is not answered yet (§5.1).
            if role == .uac, state == .early, dialog != nil, let update = makeDialogRequest(.update) {
                return [send(update, as: .update)]
            }
            return []
        }
    }

    /// The re-INVITE that re-states what is in force (held or not).
    var currentModification: Modification { wantedDirection == .sendrecv ? .resume : .hold }
}
