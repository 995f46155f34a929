import VoiceAddress
import VoiceICE
import Foundation
import NIOCore
import VoiceNetwork
import VoiceSIP
import VoiceSIPAgent

// Following the host's networks (AddressSelection.automatic).
extension VoiceClient {
    /// SIP listens on both families where the host has IPv6: one socket carries IPv4 and IPv6
    /// (IPv4 peers seen as themselves), so signaling survives a move to an IPv6-only network.
    static var wildcardHost: String { SIPMediaPortReservation.ipv6Available ? "::" : "0.0.0.0" }
    /// Call media binds both families: one port per call carries IPv4 and IPv6, so calls offer
    /// ICE host candidates on each address the host has, of either family (RFC 8421).
    static let mediaWildcardHost = "::"

    /// The address to advertise among `candidates`, for the configured server (outbound proxy,
    /// registrar or domain, when given as an address, decides the family): IPv4 where a network
    /// reaches the server over it, else IPv6 (an IPv6-only network); nil when none does.
    static func preferredHost(_ candidates: [NetworkCandidate], configuration: VoiceClientConfiguration) -> String? {
        let server = [configuration.outboundProxy?.host, configuration.registrar?.host, configuration.domain]
            .compactMap { $0.flatMap(Self.literalHost) }.first
        let families = server == nil ? [false, true] : [server?.isIPv6 ?? false]
        for ipv6 in families {
            guard let preferred = candidates.preferred(for: server, ipv6: ipv6) else { continue }
            // A remote server is not reached through loopback: that means no network.
            if preferred.type == .loopback, server.map({ !$0.isLoopback }) ?? true { continue }
            return preferred.address.description
        }
        return nil
    }

    /// The host's usable (not loopback) address in each family, nil for a family it has none
    /// in: `advertised` for its own family, where it is one; else the one picked before
    /// (`keeping`) while the host still has it, so that another address appearing (a new
    /// temporary IPv6 address, RFC 8981) does not count as a renumbering; else the preferred one.
    static func hostAddresses(
        _ candidates: [NetworkCandidate], advertised: String?, keeping previous: (ipv4: IPAddress?, ipv6: IPAddress?)
    ) -> (ipv4: IPAddress?, ipv6: IPAddress?) {
        let outward = candidates.filter { $0.type != .loopback }
        let stillThere = { (address: IPAddress?) in address.flatMap { kept in outward.contains { $0.address == kept } ? kept : nil } }
        var addresses = (
            ipv4: stillThere(previous.ipv4) ?? outward.preferred(ipv6: false)?.address,
            ipv6: stillThere(previous.ipv6) ?? outward.preferred(ipv6: true)?.address
        )
        if let advertised = advertised.flatMap(IPAddress.init), outward.contains(where: { $0.address == advertised }) {
            if advertised.isIPv6 { addresses.ipv6 = advertised } else { addresses.ipv4 = advertised }
        }
        return addresses
    }

    /// The addresses calls offer ICE host candidates on beside the advertised one: `preferred`
    /// first (the advertised address may be a NAT's, learned by STUN), then the others of both
    /// families (the media socket carries both), loopback only when it is loopback itself, in
    /// the monitor's order of preference. The ICE preferences interleave the families.
    static func otherMediaHosts(_ candidates: [NetworkCandidate], preferred: String) -> [String] {
        guard let main = IPAddress(preferred) else { return [] }
        let others = candidates.filter { $0.address != main && ($0.type == .loopback) == main.isLoopback }
        return [preferred] + others.map(\.address.description)
    }

    /// The IP address a server's host is (`10.0.0.1`, `[2001:db8::1]`), or nil for a name.
    private static func literalHost(_ host: String) -> IPAddress? {
        IPAddress(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
    }

    /// On the loop, as soon as the host's addresses change (before the change is coalesced and
    /// the calls move): each call's media checks from new addresses and, where its own address
    /// is gone and it controls ICE, moves to a new one with its peer at once (make before
    /// break; the move's re-INVITE and ICE restart follow). Loopback addresses count only on a
    /// host that has nothing else.
    func localAddressesChanged(_ candidates: [NetworkCandidate]) {
        let outward = candidates.filter { $0.type != .loopback }
        let addresses = (outward.isEmpty ? candidates : outward).map(\.address)
        for core in calls.values { core.media?.stream?.localAddressesChanged(addresses) }
    }

    /// On the loop: the networks changed.
    /// - A new preferred address: every connected call starts reconnecting (53001) and the agent
    ///   moves (re-REGISTER, a re-INVITE per call); each call reconnects when its peer answers.
    /// - No network reaches the server: connected calls start reconnecting and wait, within the
    ///   signaling reconnection timeout, for one to come back.
    /// - The same address back after an outage: the calls re-INVITE (the path may have changed
    ///   under them) and the registration is refreshed.
    /// A change that leaves the advertised address as it was, with no outage, does nothing.
    func networkChanged(_ candidates: [NetworkCandidate]) {
        guard networkMonitor != nil else { return }
        guard let host = Self.preferredHost(candidates, configuration: configuration) else {
            if !networkLost {
                networkLost = true
                logger.notice("network: no usable address reaches the server; calls wait for a network")
                let gone = !candidates.contains { $0.address.description == advertisedHost }
                for core in calls.values { core.localAddressMoved(previousAddressGone: gone) }
            }
            return
        }
        agent.setOtherMediaHosts(Self.otherMediaHosts(candidates, preferred: host))
        let addresses = Self.hostAddresses(candidates, advertised: host, keeping: hostAddressPicks)
        hostAddressPicks = addresses
        agent.setHostAddresses(ipv4: addresses.ipv4, ipv6: addresses.ipv6)
        let wasLost = networkLost
        networkLost = false
        if host != advertisedHost {
            logger.notice("network: moving from \(advertisedHost ?? "-") to \(host)")
            let gone = !candidates.contains { $0.address.description == advertisedHost }
            advertisedHost = host
            for core in calls.values { core.localAddressMoved(previousAddressGone: gone) }
            moveAgent(toLocalHost: host, oldAddressGone: gone)
        } else if wasLost {
            logger.notice("network: \(host) is usable again")
            agent.refreshRegistration()
            for core in calls.values { core.networkReturned() }
        }
    }

    /// Moves the agent to `host`, or with a STUN server (over UDP) to the address and port the
    /// NAT now gives the SIP socket, learned again from the new network. When that is what was
    /// advertised already (a NAT in front of both networks, same mapping), no re-INVITE goes
    /// out by itself: the calls waiting for one re-INVITE through the new path.
    private func moveAgent(toLocalHost host: String, oldAddressGone: Bool) {
        // Calls with a TURN relay allocate a new one from the new address first (at most 2 s):
        // their ICE restart offers it.
        newRelays().whenSuccess { relays in self.moveAgent(toLocalHost: host, oldAddressGone: oldAddressGone, relays: relays) }
    }

    /// Each call's new relayed candidates (one per family), from its media (calls without
    /// any left out); at most 2 s.
    private func newRelays() -> EventLoopFuture<[SIPCallHandle: [ICECandidate]]> {
        let loop = agent.eventLoop
        var waits: [EventLoopFuture<(SIPCallHandle, [ICECandidate])>] = []
        for (handle, core) in calls {
            guard let stream = core.media?.stream else { continue }
            let promise = loop.makePromise(of: (SIPCallHandle, [ICECandidate]).self)
            let timeout = loop.scheduleTask(in: .seconds(2)) { promise.succeed((handle, [])) }
            stream.reallocateRelay { candidates in
                loop.execute {
                    timeout.cancel()
                    promise.succeed((handle, candidates))
                }
            }
            waits.append(promise.futureResult)
        }
        return EventLoopFuture.whenAllSucceed(waits, on: loop).map { results in
            Dictionary(results.filter { !$0.1.isEmpty }, uniquingKeysWith: { a, _ in a })
        }
    }

    private func moveAgent(toLocalHost host: String, oldAddressGone: Bool, relays: [SIPCallHandle: [ICECandidate]]) {
        guard configuration.transport == .udp, agent.configuration.stunServer != nil else {
            agent.moveLocalAddress(to: host, oldAddressGone: oldAddressGone, relays: relays)
            return
        }
        agent.discoverSignalingAddress().whenComplete { result in
            let moved: EventLoopFuture<[SIPCallHandle]>
            switch result {
            case .success(let mapped):
                self.logger.notice("STUN: advertising \(mapped) after the network change")
                moved = self.agent.moveLocalAddress(to: mapped.ip.description, port: Int(mapped.port), relays: relays)
            case .failure(let error):
                self.logger.warning("STUN: no mapped address after the network change (\(error)); advertising \(host)")
                moved = self.agent.moveLocalAddress(to: host, relays: relays)
            }
            moved.whenSuccess { handles in
                guard handles.isEmpty else { return }
                for core in self.calls.values { core.networkReturned() }
            }
        }
    }
}
