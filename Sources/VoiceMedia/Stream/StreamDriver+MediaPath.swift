import VoiceDTLS
import VoiceMediaPath
import VoiceRTP
import VoiceSupport

/// The driver's side of WebRTC media: it carries out what the ``MediaPath`` value returns
/// (datagrams, the route, the DTLS association's commands, the SRTP keys, relay channels,
/// events) and feeds the path what the association and the SRTP library said.
extension StreamDriver {
    /// Gives the stream its WebRTC media path and the DTLS association it keys with.
    func adopt(path: MediaPath, dtls: DTLSAssociation) {
        self.path = path
        self.dtls = dtls
        relayServer = path.relayServer.map(SocketAddress.init)
        mediaGate = path.gate
    }

    /// Runs `body` on the path (taken out meanwhile, so that its storage stays uniquely held)
    /// and carries out what it returns.
    func drivePath(now: MediaTime, _ body: (inout MediaPath) -> [MediaPath.Effect]) {
        guard var taken = path.take() else { return }
        let effects = body(&taken)
        mediaGate = taken.gate
        path = taken
        if !effects.isEmpty { apply(effects, now: now) }
    }

    /// The path's share of a tick: what the controlling side asked (a new relay allocation, an
    /// ICE restart), the path's own timers, and the association's retransmissions.
    func tickPath(now: MediaTime) {
        drivePath(now: now) { $0.start(now: now) }
        let reallocate = control.relayReallocationVersion.load(ordering: .acquiring)
        if reallocate != relayReallocationVersion {
            relayReallocationVersion = reallocate
            drivePath(now: now) { $0.reallocateRelay(request: reallocate, now: now) }
        }
        let restarted = control.iceRestartVersion.load(ordering: .acquiring)
        if restarted != iceRestartVersion, let restart = control.iceRestart.withLockIfAvailable({ $0 }) {
            iceRestartVersion = restarted
            if let restart { drivePath(now: now) { $0.restartICE(restart, now: now) } }
        }
        let resolved = control.resolvedCandidatesVersion.load(ordering: .acquiring)
        if resolved != resolvedCandidatesVersion,
            let posted = control.resolvedCandidates.withLockIfAvailable({ slot in
                defer { slot.removeAll() }
                return slot
            })
        {
            resolvedCandidatesVersion = resolved
            for entry in posted {
                drivePath(now: now) { $0.addRemoteCandidates(entry.candidates, usernameFragment: entry.usernameFragment, now: now) }
            }
        }
        let addresses = control.localAddressesVersion.load(ordering: .acquiring)
        if addresses != localAddressesVersion,
            let posted = control.localAddresses.withLockIfAvailable({ slot in
                defer { slot = nil }
                return slot
            })
        {
            localAddressesVersion = addresses
            if let posted { drivePath(now: now) { $0.localAddressesChanged(posted, now: now) } }
        }
        drivePath(now: now) { $0.tick(now: now) }
        if let dtls, path?.runsDTLS == true, let due = dtls.nextDeadline, now >= due {
            let said = dtls.tick(now: now)
            drivePath(now: now) { $0.dtlsSaid(said, now: now) }
        }
    }

    /// The call is ending: close_notify to the peer, the relay given back.
    func closePath(now: MediaTime) {
        let closeNotify = path?.runsDTLS == true ? dtls?.close() ?? [] : []
        drivePath(now: now) { $0.close(closeNotify: closeNotify) }
    }

    /// Carries out what the path asks.
    func apply(_ effects: [MediaPath.Effect], now: MediaTime) {
        for effect in effects {
            switch effect {
            case .send(let bytes, let destination, let source):
                let to = SocketAddress(destination)
                _ = bytes.withUnsafeBytes { transports[0].send($0, to: to, from: source.map(SocketAddress.init)) }
            case .sendToRelay(let bytes):
                guard let relayServer else { continue }
                _ = bytes.withUnsafeBytes { transports[relayTransportIndex].send($0, to: relayServer) }
            case .route(let route):
                mediaSource = route.source.map(SocketAddress.init)
                let destination = SocketAddress(route.destination)
                stream.setRemote(RemoteEndpoints(rtp: destination, rtcp: destination))
            case .dtls(.start):
                guard let said = dtls?.start(now: now) else { continue }
                drivePath(now: now) { $0.dtlsSaid(said, now: now) }
            case .dtls(.receive(let bytes)):
                guard let said = dtls?.receive(bytes, now: now) else { continue }
                drivePath(now: now) { $0.dtlsSaid(said, now: now) }
            case .protect(let keys):
                do throws(SRTPError) {
                    stream.installProtection(try SRTPSession(outbound: keys.local, inbound: keys.remote))
                    drivePath(now: now) { $0.keysInstalled(now: now) }
                } catch {
                    drivePath(now: now) { $0.keysRefused("\(error)") }
                }
            case .channelBound(let number, let peer):
                relayChannels.append((number, SocketAddress(peer)))
            case .channelsCleared:
                relayChannels.removeAll()
            case .event(let event):
                control.emit(AudioStreamEvent(event))
            }
        }
    }

    /// The channel `peer` is bound to, for RTP to go as ChannelData (nil: none bound yet).
    func relayChannel(for peer: SocketAddress) -> UInt16? {
        for channel in relayChannels where channel.peer == peer { return channel.number }
        return nil
    }

    /// The peer a relayed ChannelData came from.
    func relayPeer(onChannel number: UInt16) -> SocketAddress? {
        for channel in relayChannels where channel.number == number { return channel.peer }
        return nil
    }
}

extension AudioStreamEvent {
    /// The stream's event for what its media path reported.
    init(_ event: MediaPathEvent) {
        switch event {
        case .connected(let pair, let destination, let security):
            self = .mediaPathConnected(path: pair?.description ?? destination.description, security: security)
        case .failed(let why): self = .mediaPathFailed(why)
        case .consentLost: self = .consentLost
        case .consentRestored: self = .consentRestored
        case .relayReallocated(let request, let candidates): self = .relayReallocated(request: request, candidates: candidates)
        }
    }
}
