import VoiceAddress
import VoiceDNS

/// Where a SIP URI's requests go, found as RFC 3263 §4 says: NAPTR, then SRV, then A/AAAA. A
/// value fed the answers to the lookups it asks for, returning more lookups or, at the end,
/// every target in the order to try them.
///
/// - A numeric host needs no lookup. A URI with a port looks up the host's addresses only.
/// - A URI naming its transport (or `sips:`) looks up that transport's SRV name.
/// - Otherwise NAPTR picks the transports (`SIP+D2U`, `SIP+D2T`, `SIPS+D2T`, in order and
///   preference) and their SRV names; with no usable NAPTR every transport's SRV name is
///   looked up, the agent's own transport first.
/// - SRV records are ordered by priority and, within one priority, by a weighted random draw
///   (RFC 2782); their targets' addresses come from the answer's additional section or a lookup.
/// - With no SRV record the host's addresses are used at the transport's default port. An SRV
///   answer whose target is `.` says the service is not offered there: no fallback.
package struct SIPServerLocation: Sendable {
    /// What is to be located.
    package struct Request: Hashable, Sendable {
        /// The host name (or numeric address, without brackets).
        package var host: String
        /// The port, when the URI gives one.
        package var port: Int?
        /// The transport, when the URI names it (`transport=`, `sips:`, or a WebSocket agent).
        package var transport: SIPTransportProtocol?
        /// `sips:`: only TLS may be used.
        package var secure: Bool

        package init(host: String, port: Int? = nil, transport: SIPTransportProtocol? = nil, secure: Bool = false) {
            self.host = host
            self.port = port
            self.transport = transport
            self.secure = secure
        }
    }

    /// What the owner does next.
    package enum Action: Hashable, Sendable {
        /// Look `question` up (in the cache or with a resolver) and feed back the outcome.
        case lookup(DNSQuestion)
        /// Every target, in order: location is over.
        case finished([SIPServerTarget])
        /// No target: location is over.
        case failed(DNSError)
    }

    private struct Service: Hashable, Sendable {
        var name: String
        var transport: SIPTransportProtocol
    }

    private struct Hop: Hashable, Sendable {
        var host: String
        var port: Int
        var transport: SIPTransportProtocol
    }

    private enum Phase: Sendable {
        case idle
        case naptr
        case services([Service], outcomes: [Service: Result<DNSAnswer, DNSError>])
        case addresses([Hop], outcomes: [DNSQuestion: Result<DNSAnswer, DNSError>], fallbackError: DNSError?)
        case over
    }

    /// The request.
    package let request: Request
    /// The agent's own transport: first among the SRV names tried without NAPTR, and the one
    /// used for a bare host.
    package let preferredTransport: SIPTransportProtocol
    /// The address records asked for each host, in order (`[.a]` for an IPv4 agent).
    package let addressTypes: [DNSRecordType]
    private var phase: Phase = .idle

    package init(_ request: Request, preferredTransport: SIPTransportProtocol, addressTypes: [DNSRecordType] = [.a]) {
        self.request = request
        self.preferredTransport = preferredTransport
        self.addressTypes = addressTypes.isEmpty ? [.a] : addressTypes
    }

    private var serverName: String { DNSName.normalized(request.host) }

    /// The first actions.
    package mutating func start() -> [Action] {
        guard case .idle = phase else { return [] }
        if IPAddress(request.host) != nil {
            phase = .over
            let transport = request.transport ?? (request.secure ? .tls : preferredTransport)
            return [
                .finished([
                    SIPServerTarget(
                        transport: transport, address: request.host, port: request.port ?? transport.defaultPort, host: request.host,
                        serverName: nil)
                ])
            ]
        }
        if let port = request.port {
            let transport = request.transport ?? (request.secure ? .tls : preferredTransport)
            return lookUpAddresses([Hop(host: serverName, port: port, transport: transport)], additionals: [], fallbackError: nil)
        }
        if let transport = request.transport {
            guard let service = Self.service(for: transport, host: serverName) else {
                return lookUpAddresses(
                    [Hop(host: serverName, port: transport.defaultPort, transport: transport)], additionals: [], fallbackError: nil)
            }
            return lookUpServices([service])
        }
        if request.secure { return lookUpServices([Service(name: "_sips._tcp." + serverName, transport: .tls)]) }
        phase = .naptr
        return [.lookup(DNSQuestion(serverName, .naptr))]
    }

    /// Feeds the outcome of the lookup of `question`; `random` orders SRV records of equal priority.
    package mutating func receive(
        _ outcome: Result<DNSAnswer, DNSError>, for question: DNSQuestion, using random: inout some RandomNumberGenerator
    ) -> [Action] {
        switch phase {
        case .idle, .over:
            return []
        case .naptr:
            guard question == DNSQuestion(serverName, .naptr) else { return [] }
            let services = (try? outcome.get()).map(servicesFromNAPTR) ?? []
            return lookUpServices(services.isEmpty ? defaultServices : services)
        case .services(let services, var outcomes):
            guard question.type == .srv, let service = services.first(where: { $0.name == question.name }), outcomes[service] == nil else {
                return []
            }
            outcomes[service] = outcome
            guard outcomes.count == services.count else {
                phase = .services(services, outcomes: outcomes)
                return []
            }
            return servicesAnswered(services, outcomes, using: &random)
        case .addresses(let hops, var outcomes, let fallbackError):
            guard outcomes[question] == Self.pending else { return [] }
            outcomes[question] = outcome
            phase = .addresses(hops, outcomes: outcomes, fallbackError: fallbackError)
            return addressesAnswered(hops, outcomes, fallbackError: fallbackError)
        }
    }

    // MARK: - NAPTR and SRV

    private static func service(for transport: SIPTransportProtocol, host: String) -> Service? {
        switch transport {
        case .udp: Service(name: "_sip._udp." + host, transport: .udp)
        case .tcp: Service(name: "_sip._tcp." + host, transport: .tcp)
        case .tls: Service(name: "_sips._tcp." + host, transport: .tls)
        case .ws, .wss: nil
        }
    }

    private var defaultServices: [Service] {
        var order: [SIPTransportProtocol] = [preferredTransport]
        for transport in [SIPTransportProtocol.tls, .tcp, .udp] where !order.contains(transport) { order.append(transport) }
        return order.compactMap { Self.service(for: $0, host: serverName) }
    }

    private func servicesFromNAPTR(_ answer: DNSAnswer) -> [Service] {
        let pointers = answer.records.compactMap { record -> DNSNamingPointer? in
            guard case .naptr(let pointer) = record, pointer.flags.lowercased() == "s", !pointer.replacement.isEmpty else { return nil }
            return pointer
        }.sorted { ($0.order, $0.preference) < ($1.order, $1.preference) }
        var services: [Service] = []
        for pointer in pointers {
            let transport: SIPTransportProtocol
            switch pointer.service.uppercased() {
            case "SIP+D2U": transport = .udp
            case "SIP+D2T": transport = .tcp
            case "SIPS+D2T": transport = .tls
            default: continue
            }
            let service = Service(name: pointer.replacement, transport: transport)
            if !services.contains(service) { services.append(service) }
        }
        return services
    }

    private mutating func lookUpServices(_ services: [Service]) -> [Action] {
        phase = .services(services, outcomes: [:])
        return services.map { .lookup(DNSQuestion($0.name, .srv)) }
    }

    private mutating func servicesAnswered(
        _ services: [Service], _ outcomes: [Service: Result<DNSAnswer, DNSError>], using random: inout some RandomNumberGenerator
    ) -> [Action] {
        var hops: [Hop] = []
        var additionals: [DNSResourceRecord] = []
        var errors: [DNSError] = []
        for service in services {
            switch outcomes[service] {
            case .success(let answer):
                let records = answer.records.compactMap { if case .srv(let srv) = $0 { srv } else { nil } }
                for srv in Self.ordered(records, using: &random) {
                    hops.append(Hop(host: srv.target, port: Int(srv.port), transport: service.transport))
                }
                additionals += answer.additionals
            case .failure(let error):
                errors.append(error)
            case nil:
                break
            }
        }
        if !hops.isEmpty { return lookUpAddresses(hops, additionals: additionals, fallbackError: nil) }
        if let refused = errors.first(where: { $0.kind == .serviceNotOffered }) {
            phase = .over
            return [.failed(refused)]
        }
        // RFC 3263 §4.2: no SRV record, so the domain itself, at the transport's default port.
        let transport = request.transport ?? (request.secure ? .tls : preferredTransport)
        let hard = errors.first { $0.negativeTTL == nil }
        return lookUpAddresses([Hop(host: serverName, port: transport.defaultPort, transport: transport)], additionals: [], fallbackError: hard)
    }

    /// RFC 2782's order: by priority; within a priority, repeatedly a record drawn with a
    /// chance proportional to its weight (weight 0 only when nothing else is left).
    package static func ordered(_ records: [DNSServiceRecord], using random: inout some RandomNumberGenerator) -> [DNSServiceRecord] {
        var result: [DNSServiceRecord] = []
        let priorities = Set(records.map(\.priority)).sorted()
        for priority in priorities {
            var left = records.filter { $0.priority == priority }.sorted { $0.weight < $1.weight }
            while !left.isEmpty {
                let total = left.reduce(0) { $0 + Int($1.weight) }
                let draw = total == 0 ? 0 : Int.random(in: 0...total, using: &random)
                var running = 0
                var index = left.count - 1
                for (i, record) in left.enumerated() {
                    running += Int(record.weight)
                    if running >= draw {
                        index = i
                        break
                    }
                }
                result.append(left.remove(at: index))
            }
        }
        return result
    }

    // MARK: - Addresses

    private static let pending = Result<DNSAnswer, DNSError>.failure(DNSError(.resolverFailure, "pending"))

    private mutating func lookUpAddresses(_ hops: [Hop], additionals: [DNSResourceRecord], fallbackError: DNSError?) -> [Action] {
        var outcomes: [DNSQuestion: Result<DNSAnswer, DNSError>] = [:]
        var actions: [Action] = []
        for host in Set(hops.map(\.host)) {
            let given = additionals.filter { $0.name == host }
            for type in addressTypes {
                let question = DNSQuestion(host, type)
                let records = given.filter { $0.type == type }
                if !records.isEmpty {
                    outcomes[question] = .success(
                        DNSAnswer(question: question, records: records.map(\.data), ttl: records.map(\.ttl).min() ?? 0))
                } else {
                    outcomes[question] = Self.pending
                }
            }
        }
        // Lookups in the order of the hops, so the first target's address is asked first.
        var asked: Set<DNSQuestion> = []
        for hop in hops {
            for type in addressTypes {
                let question = DNSQuestion(hop.host, type)
                if outcomes[question] == Self.pending, asked.insert(question).inserted { actions.append(.lookup(question)) }
            }
        }
        phase = .addresses(hops, outcomes: outcomes, fallbackError: fallbackError)
        guard actions.isEmpty else { return actions }
        return addressesAnswered(hops, outcomes, fallbackError: fallbackError)
    }

    private mutating func addressesAnswered(
        _ hops: [Hop], _ outcomes: [DNSQuestion: Result<DNSAnswer, DNSError>], fallbackError: DNSError?
    ) -> [Action] {
        guard !outcomes.values.contains(Self.pending) else { return [] }
        phase = .over
        var targets: [SIPServerTarget] = []
        var errors: [DNSError] = []
        for hop in hops {
            for type in addressTypes {
                switch outcomes[DNSQuestion(hop.host, type)] {
                case .success(let answer):
                    for case .address(let ip) in answer.records {
                        let target = SIPServerTarget(
                            transport: hop.transport, address: ip.description, port: hop.port, host: hop.host, serverName: serverName)
                        if !targets.contains(target) { targets.append(target) }
                    }
                case .failure(let error):
                    errors.append(error)
                case nil:
                    break
                }
            }
        }
        if !targets.isEmpty { return [.finished(targets)] }
        // The most telling failure: a broken answer or a timeout over a plain "no such name".
        let error = fallbackError ?? errors.first { $0.negativeTTL == nil } ?? errors.first
        return [.failed(error ?? DNSError(.noRecords, "\(request.host): no address"))]
    }
}
