import VoiceSIPAgent

// A call when the host's network changes under it.
extension CallCore {
    /// Our address moved (or no network is left): a connected call reports `isReconnecting`
    /// (53001) until the peer answers the re-INVITE carrying the new address, or until the
    /// signaling reconnection timeout ends it. A call still being set up carries the new
    /// address (a callee answers with it; the session re-INVITEs once confirmed), with no
    /// callback, except a call we placed whose old address is gone: the answer to its INVITE
    /// would go to that address (RFC 3261 §18.2.2), so it is cancelled and fails with 53001
    /// at once rather than ring forever.
    func localAddressMoved(previousAddressGone: Bool) {
        if role == .caller, previousAddressGone, machine.state == .connecting || machine.state == .ringing {
            run(machine.signalingConnectionLost(now: now))
            return
        }
        guard machine.state == .connected || machine.state == .reconnecting else { return }
        var outputs = machine.signalingConnectionLost(now: now)
        // The agent's move sends the re-INVITE itself.
        outputs.removeAll { $0 == .action(.reInviteAfterSignalingReconnect) }
        run(outputs)
    }

    /// The network is back with the address we had: re-INVITE so the peer (and any NAT or
    /// proxy on the way) sees us again; the answer ends the reconnection.
    func networkReturned() {
        guard machine.reconnectCauses.contains(.signaling), let handle else { return }
        client.agent.refresh(handle)
    }
}

// A call whose first hop stops answering keep-alives.
extension CallCore {
    /// Keep-alives to `hop` went unanswered: a connected call whose requests go through it (all
    /// do with an outbound proxy; otherwise those sent there, or whose INVITE came from it) is
    /// reconnecting (53001). It sends nothing meanwhile (requests
    /// would be lost on the dead path); the signaling reconnection timeout ends it unless the
    /// hop answers again first.
    func signalingPathFailed(through hop: SIPTransportEndpoint) {
        guard machine.state == .connected || machine.state == .reconnecting, goesThrough(hop) else { return }
        var outputs = machine.signalingConnectionLost(now: now)
        outputs.removeAll { $0 == .action(.reInviteAfterSignalingReconnect) }
        run(outputs)
    }

    /// `hop` answers again: a call reconnecting for its signaling re-INVITEs through it; the
    /// answer reconnects it.
    func signalingPathRecovered(through hop: SIPTransportEndpoint) {
        guard machine.reconnectCauses.contains(.signaling), goesThrough(hop), let handle else { return }
        client.agent.refresh(handle)
    }

    private func goesThrough(_ hop: SIPTransportEndpoint) -> Bool {
        if client.configuration.outboundProxy != nil { return true }
        guard let handle, let info = client.agent.callInfo(handle) else { return false }
        return info.requestPeers.contains(hop) || info.invitePeer == hop
    }
}
