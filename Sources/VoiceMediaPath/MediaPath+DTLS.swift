import VoiceDTLSTypes
import VoiceAddress
import VoiceSupport

extension MediaPath {
    /// What the DTLS association said (to a command of ``Effect/dtls(_:)``, or on its tick).
    package mutating func dtlsSaid(_ actions: [DTLSAction], now: MediaTime) -> [Effect] {
        var effects: [Effect] = []
        for action in actions {
            switch action {
            case .send(let bytes):
                effects += outgoing(bytes)
            case .connected(let keys):
                guard case .keying(let route) = phase else { continue }
                phase = .installingKeys(route, keys)
                effects.append(.protect(keys))
            case .failed(let error):
                figures.dtlsState = .failed
                effects += fail(.dtls(error))
            case .closed:
                // The peer is hanging up: its close_notify often outruns its BYE. Not a failure;
                // the BYE ends the call (or, if none comes, the media watchdog does).
                figures.dtlsState = .closed
            }
        }
        return effects
    }

    /// The driver installed the keys of ``Effect/protect(_:)``: media flows.
    package mutating func keysInstalled(now: MediaTime) -> [Effect] {
        guard case .installingKeys(let route, let keys) = phase else { return [] }
        phase = .keyed(route, keys.suite)
        figures.srtpSuite = keys.suite
        figures.dtlsState = .connected
        if figures.keyedAt == nil { figures.keyedAt = now }
        return [.event(.connected(pair: figures.selectedPair, destination: route.destination, security: keys.description))]
    }

    /// The SRTP library would not take the keys of ``Effect/protect(_:)``: the path fails.
    package mutating func keysRefused(_ reason: String) -> [Effect] {
        guard case .installingKeys(_, let keys) = phase else { return [] }
        figures.dtlsState = .failed
        return fail(.dtls(.handshakeFailed("SRTP session for \(keys.suite.sdesName): \(reason)")))
    }

    /// Enters keying over `route` and has the association start; `announce`: the stream's media
    /// moves to the route too (not without ICE, where the signaled addresses are already its own).
    mutating func startDTLS(over route: MediaRoute, announce: Bool) -> [Effect] {
        phase = .keying(route)
        figures.dtlsState = .connecting
        return announce ? [.route(route), .dtls(.start)] : [.dtls(.start)]
    }

    /// A DTLS datagram for the peer: along the route, through the relay when it is relayed.
    mutating func outgoing(_ bytes: [UInt8]) -> [Effect] {
        guard let route else { return [] }
        figures.traffic.sent(bytes.count)
        guard route.viaRelay, relay != nil else { return [.send(bytes, to: route.destination, from: route.source)] }
        guard let wrapped = wrapForRelay(bytes, to: route.destination) else { return [] }
        return [.sendToRelay(wrapped)]
    }
}
