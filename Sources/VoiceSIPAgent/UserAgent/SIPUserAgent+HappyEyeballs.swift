import NIOCore
import VoiceSIP
import VoiceSupport

/// A server's IPv6 and IPv4 addresses raced (``SIPHappyEyeballs``), and the requests waiting
/// for the winner.
struct SIPServerRace {
    var eyeballs: SIPHappyEyeballs
    /// The targets as located (the order the requests go in if the race gives up).
    var targets: [SIPServerTarget]
    /// The hop probed: an OPTIONS to it (no user part) goes to each address.
    var probeURI: SIPURI
    var waiting: [(request: SIPRequest, owner: SIPTransactionOwner)]
    var timer: Scheduled<Void>?
}

extension SIPUserAgent {
    /// Whether `request` waits for a race between the IPv6 and IPv4 addresses of its server
    /// (RFC 8305, as ``SIPHappyEyeballs`` says): the first time a server located for `pin` has
    /// both families. The race probes with OPTIONS, never with the request itself (an INVITE
    /// sent to two addresses of one server would fork); the winner is pinned, and the request
    /// and any that joined meanwhile go to it first, with the others as failover. A race that
    /// gets no answer sends them to the targets in turn, as without one.
    func joinsRace(
        _ request: SIPRequest, owner: SIPTransactionOwner, targets: [SIPServerTarget], pin: SIPTargetResolver.Target, hop: SIPURI
    ) -> Bool {
        guard request.method != .ack, request.method != .cancel, serverPins[pin] == nil, SIPHappyEyeballs.isWorthRacing(targets)
        else { return false }
        if races[pin] != nil {
            races[pin]?.waiting.append((request, owner))
            return true
        }
        var probeURI = hop
        probeURI.user = nil
        races[pin] = SIPServerRace(
            eyeballs: SIPHappyEyeballs(targets: targets), targets: targets, probeURI: probeURI, waiting: [(request, owner)])
        logger.debug("\(pin.host): racing \(SIPHappyEyeballs.interleaved(targets).map(\.description).joined(separator: ", "))")
        raceEvent(pin) { $0.start(now: self.now) }
        return true
    }

    /// A probe's OPTIONS was answered (any response: the address reaches the server).
    func probeAnswered(_ id: Int) {
        guard let probe = probes.removeValue(forKey: id) else { return }
        raceEvent(probe.pin) { $0.answered(probe.target, now: self.now) }
    }

    /// A probe's OPTIONS failed (no route, an ICMP error, a refused connection, no answer).
    func probeFailed(_ id: Int) {
        guard let probe = probes.removeValue(forKey: id) else { return }
        raceEvent(probe.pin) { $0.failed(probe.target, now: self.now) }
    }

    /// Runs `body` on the race for `pin` and carries out what it says.
    private func raceEvent(_ pin: SIPTargetResolver.Target, _ body: (inout SIPHappyEyeballs) -> [SIPHappyEyeballs.Action]) {
        guard var race = races[pin] else { return }
        let actions = body(&race.eyeballs)
        races[pin] = race
        for action in actions {
            switch action {
            case .probe(let target):
                probe(target, of: pin, uri: race.probeURI)
            case .abandon:
                // Its transaction ends by itself; an answer that still comes is ignored.
                break
            case .won(let target):
                logger.info("\(pin.host): \(target) answered first")
                serverPins[pin] = target
                finishRace(pin, targets: pinnedFirst(race.targets, for: pin))
                return
            case .exhausted:
                logger.info("\(pin.host): no address answered the probes; trying them in turn")
                finishRace(pin, targets: race.targets)
                return
            }
        }
        scheduleRaceTimer(pin)
    }

    private func probe(_ target: SIPServerTarget, of pin: SIPTargetResolver.Target, uri: SIPURI) {
        guard let endpoint = try? SIPTransportEndpoint(transport: target.transport, ip: target.address, port: target.port) else {
            raceEvent(pin) { $0.failed(target, now: self.now) }
            return
        }
        let id = nextProbeID
        nextProbeID += 1
        probes[id] = (pin, target)
        startClientTransaction(makeOptions(to: uri), to: endpoint, serverName: target.serverName, owner: .probe(id), failover: nil)
    }

    private func scheduleRaceTimer(_ pin: SIPTargetResolver.Target) {
        guard var race = races[pin] else { return }
        race.timer?.cancel()
        race.timer = race.eyeballs.nextDeadline.map { due in
            eventLoop.scheduleTask(in: .nanoseconds(max(0, (due - now).nanoseconds))) {
                self.raceEvent(pin) { $0.tick(now: self.now) }
            }
        }
        races[pin] = race
    }

    private func finishRace(_ pin: SIPTargetResolver.Target, targets: [SIPServerTarget]) {
        guard let race = races.removeValue(forKey: pin) else { return }
        race.timer?.cancel()
        for (id, probe) in probes where probe.pin == pin { probes[id] = nil }
        for (request, owner) in race.waiting {
            attempt(request, owner: owner, targets: targets[...], pin: pin, originalBranch: nil, failure: .transportError)
        }
    }
}
