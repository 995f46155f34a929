import VoiceSIPAgent

// A call when the host's network changes under it.
extension CallCore {
    /// Our address moved (or no network is left): a connected call reports `isReconnecting`
    /// (53001) until the peer answers the re-INVITE carrying the new address, or until the
    /// signaling reconnection timeout ends it. A call still being set up just carries the new
    /// address (the session re-INVITEs once it is confirmed), with no callback.
    func localAddressMoved() {
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
