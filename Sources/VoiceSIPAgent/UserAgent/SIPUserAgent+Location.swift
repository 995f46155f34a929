import NIOCore
import VoiceAddress
import VoiceDNS
import VoiceSIP
import VoiceSupport

/// One server location in progress: the value, and the promise its targets complete. Used
/// only on the agent's event loop, as the agent is.
final class SIPLocationRun: @unchecked Sendable {
    var location: SIPServerLocation
    let promise: EventLoopPromise<[SIPServerTarget]>

    init(_ location: SIPServerLocation, _ promise: EventLoopPromise<[SIPServerTarget]>) {
        self.location = location
        self.promise = promise
    }
}

extension SIPUserAgent {
    /// The lookups server location makes: the configuration's, else a ``DNSResolver`` (its
    /// thread started on first use; c-ares reads its files there, not on this loop), else, when
    /// not even that thread can start, one that fails each lookup.
    var dns: any DNSLookup {
        if let dnsLookupStorage { return dnsLookupStorage }
        let made: any DNSLookup
        do {
            made = try DNSResolver(configuration.dns)
        } catch {
            logger.error("no DNS resolver: \(error)")
            made = UnavailableDNS(error: error)
        }
        dnsLookupStorage = made
        return made
    }

    /// Every target `target` leads to, in the order to try them (RFC 3263): a name in the hosts
    /// file is used as its addresses; any other through NAPTR, SRV and A/AAAA lookups, answered
    /// from the cache when it can. On the loop; a failure is a ``SIPTransportError`` `.dnsResolution`.
    func locate(_ target: SIPTargetResolver.Target) -> EventLoopFuture<[SIPServerTarget]> {
        let promise = eventLoop.makePromise(of: [SIPServerTarget].self)
        let types = addressRecordTypes
        let isName = IPAddress(target.host) == nil
        if !isName {
            run(SIPLocationRun(SIPServerLocation(target.locationRequest, preferredTransport: configuration.transport), promise))
        } else {
            dns.hostsFileAddresses(target.host, on: eventLoop).whenComplete { result in
                let listed = (try? result.get()) ?? []
                var request = target.locationRequest
                // The first address of the first family asked for, IPv4 first where the host
                // has it: a hosts file is a fixed setup (`localhost` has both), not raced.
                let ordered = types.sorted { a, _ in a == .a }
                if case .address(let ip)? = ordered.lazy.compactMap({ type in listed.first { $0.type == type } }).first {
                    request.host = ip.description
                }
                self.run(
                    SIPLocationRun(SIPServerLocation(request, preferredTransport: self.configuration.transport, addressTypes: types), promise))
            }
        }
        guard isName else { return promise.futureResult }
        return promise.futureResult.map { targets in
            // A hosts-file address keeps the name it was found for (TLS checks the name).
            targets.map { found -> SIPServerTarget in
                var found = found
                if found.serverName == nil { found.serverName = target.serverName }
                if IPAddress(found.host) != nil { found.host = target.host }
                return found
            }
        }
    }

    /// The address records asked for: those of the families the host has when the client
    /// follows its networks (AAAA first, RFC 8305), else A for an IPv4 agent and AAAA then A
    /// for an IPv6 one.
    var addressRecordTypes: [DNSRecordType] {
        if let addresses = hostAddresses {
            let types = (addresses.ipv6 != nil ? [DNSRecordType.aaaa] : []) + (addresses.ipv4 != nil ? [.a] : [])
            return types.isEmpty ? [.a] : types
        }
        guard let ip = IPAddress(configuration.listenHost), ip.bytes.count == 16 else { return [.a] }
        return [.aaaa, .a]
    }

    private func run(_ run: SIPLocationRun) {
        perform(run.location.start(), for: run)
    }

    private func perform(_ actions: [SIPServerLocation.Action], for run: SIPLocationRun) {
        for action in actions {
            switch action {
            case .lookup(let question):
                switch dnsCache.lookup(question, now: now) {
                case .answer(let answer)?:
                    feed(.success(answer), for: question, to: run)
                case .failure(let error)?:
                    feed(.failure(error), for: question, to: run)
                case nil:
                    dns.lookup(question, on: eventLoop).whenComplete { result in
                        let outcome = result.mapError { ($0 as? DNSError) ?? DNSError(.resolverFailure, "\(question): \($0)") }
                        self.dnsCache.store(outcome, for: question, now: self.now)
                        self.logger.debug("DNS \(question): \(outcome)")
                        self.feed(outcome, for: question, to: run)
                    }
                }
            case .finished(let targets):
                logger.debug("\(run.location.request.host) located: \(targets)")
                run.promise.succeed(targets)
            case .failed(let error):
                run.promise.fail(SIPTransportError(.dnsResolution, error.description))
            }
        }
    }

    private func feed(_ outcome: Result<DNSAnswer, DNSError>, for question: DNSQuestion, to run: SIPLocationRun) {
        var random = SystemRandomNumberGenerator()
        perform(run.location.receive(outcome, for: question, using: &random), for: run)
    }

    /// Every target of `hops`, in order, each hop's located in parallel, the one that last
    /// answered (``serverPins``, under the first hop) first; fails only when none has a target
    /// (with the first hop's error).
    func locate(_ hops: [SIPTargetResolver.Target]) -> EventLoopFuture<[SIPServerTarget]> {
        let futures = hops.map { locate($0) }
        return EventLoopFuture.whenAllComplete(futures, on: eventLoop).flatMapThrowing { results in
            var targets: [SIPServerTarget] = []
            var firstError: Error?
            for result in results {
                switch result {
                case .success(let found): targets += found.filter { !targets.contains($0) }
                case .failure(let error): firstError = firstError ?? error
                }
            }
            if targets.isEmpty { throw firstError ?? SIPTransportError(.dnsResolution, "no target") }
            return hops.first.map { self.pinnedFirst(targets, for: $0) } ?? targets
        }
    }

    /// Where a request goes: its first Route (`route`); without one, the outbound proxy and the
    /// fallback proxies, else the Request-URI (`uri`). The first is what the target that
    /// answers is pinned under.
    func hops(toward uri: SIPURI, route: SIPURI? = nil) throws(SIPTransportError) -> [SIPTargetResolver.Target] {
        if let route { return [try resolver.target(for: route)] }
        guard let proxy = configuration.outboundProxy else { return [try resolver.target(for: uri)] }
        return [try resolver.target(for: proxy)] + configuration.fallbackProxies.compactMap { try? resolver.target(for: $0) }
    }

    /// `targets` with the one that last answered for `target` first.
    func pinnedFirst(_ targets: [SIPServerTarget], for target: SIPTargetResolver.Target) -> [SIPServerTarget] {
        guard let pinned = serverPins[target], let index = targets.firstIndex(of: pinned), index > 0 else { return targets }
        var ordered = targets
        ordered.insert(ordered.remove(at: index), at: 0)
        return ordered
    }

    /// The first target of `target` as an endpoint (for the ACK and keep-alives, which follow
    /// the target requests last reached).
    func firstEndpoint(of hops: [SIPTargetResolver.Target]) -> EventLoopFuture<(SIPTransportEndpoint, SIPServerTarget)> {
        locate(hops).flatMapThrowing { targets in
            for found in targets {
                if let endpoint = try? SIPTransportEndpoint(transport: found.transport, ip: found.address, port: found.port) {
                    return (endpoint, found)
                }
            }
            throw SIPTransportError(.dnsResolution, "\(hops.first?.host ?? ""): no usable address")
        }
    }
}

/// Lookups when no resolver could start: each fails with why.
struct UnavailableDNS: DNSLookup {
    let error: DNSError

    func lookup(_ question: DNSQuestion, on eventLoop: EventLoop) -> EventLoopFuture<DNSAnswer> {
        eventLoop.makeFailedFuture(error)
    }

    func hostsFileAddresses(_ name: String, on eventLoop: EventLoop) -> EventLoopFuture<[DNSRecordData]> {
        eventLoop.makeSucceededFuture([])
    }
}
