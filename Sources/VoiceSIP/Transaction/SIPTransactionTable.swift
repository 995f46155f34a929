import VoiceSupport

/// Owns every transaction of a user agent, keyed by the RFC 3261 §17.1.3 / §17.2.3 matching
/// rules, and runs their timers on a virtual timer wheel.
///
/// The driver feeds it events with the current time and performs the returned outputs; it asks
/// ``nextDeadline`` when to call ``advance(to:)`` next. Timer actions are consumed here: outputs
/// only carry what the driver or TU must act on (transmit, deliver, time out, terminate).
/// Terminated transactions are removed along with their timers. A pure value, not thread-safe.
package struct SIPTransactionTable<Message> {
    /// One action for the driver, tagged with the transaction it comes from.
    package struct Output {
        /// The transaction.
        package var key: SIPTransactionKey
        /// What to do.
        package var action: SIPTransactionAction<Message>

        /// Creates an output.
        package init(key: SIPTransactionKey, action: SIPTransactionAction<Message>) {
            self.key = key
            self.action = action
        }
    }

    /// What became of a received response.
    package enum ResponseResult {
        /// It matched a client transaction, which produced these outputs (possibly none: absorbed).
        case matched([Output])
        /// No client transaction matches; RFC 3261 §17.1.3 passes it to the core (e.g. a 2xx
        /// retransmission for a dialog, or a stray to drop).
        case unmatched
    }

    /// What became of a received request.
    package enum RequestResult {
        /// A new server transaction was created; the outputs pass the request to the TU.
        case created(SIPTransactionKey, [Output])
        /// A retransmission or an ACK matched an existing server transaction.
        case matched(SIPTransactionKey, [Output])
        /// An ACK matching no transaction: the ACK to a 2xx, for the TU (dialog) to handle.
        case unmatchedACK
    }

    /// Timer values for new transactions.
    package let configuration: SIPTransactionConfiguration
    /// Most transactions the table holds at once.
    package let capacity: Int
    /// Most server transactions at once: the rest of ``capacity`` stays for our own requests
    /// (a BYE, a REGISTER refresh), however many requests arrive.
    package let serverCapacity: Int
    /// Most server transactions at once for requests from one source (IP address): a flood
    /// from one address cannot take the table from everybody else.
    package let serverCapacityPerSource: Int
    /// The live transactions.
    package private(set) var transactions: [SIPTransactionKey: SIPTransaction<Message>] = [:]
    private var timers = SIPTransactionTimerQueue()
    /// The source of each live server transaction (empty: exempt from the per-source limit).
    private var sourceOfServerTransaction: [SIPTransactionKey: String] = [:]
    private var serverCountBySource: [String: Int] = [:]

    /// Creates an empty table.
    /// - Parameters:
    ///   - configuration: T1, T2, T4 and derived timers.
    ///   - capacity: Most concurrent transactions; further ones throw ``SIPTransactionError/tableFull``.
    ///   - serverCapacity: Most server transactions; by default three quarters of `capacity`.
    ///   - serverCapacityPerSource: Most server transactions per source; by default an eighth
    ///     of `serverCapacity`. Beyond it ``receiveRequest(_:identity:source:reliableTransport:now:)``
    ///     throws ``SIPTransactionError/sourceLimit``.
    package init(
        configuration: SIPTransactionConfiguration = .rfc3261, capacity: Int = 4096, serverCapacity: Int? = nil,
        serverCapacityPerSource: Int? = nil
    ) {
        self.configuration = configuration
        self.capacity = max(0, capacity)
        self.serverCapacity = min(self.capacity, max(0, serverCapacity ?? self.capacity * 3 / 4))
        self.serverCapacityPerSource = max(1, serverCapacityPerSource ?? max(1, self.serverCapacity / 8))
    }

    /// Pending server transactions for requests from `source`.
    package func serverTransactionCount(from source: String) -> Int { serverCountBySource[source] ?? 0 }

    /// Number of live transactions.
    package var count: Int { transactions.count }

    /// Number of running timers.
    package var runningTimerCount: Int { timers.count }

    /// When the next timer fires, or nil if none runs. The driver calls ``advance(to:)`` then.
    package var nextDeadline: MediaTime? { timers.nextDeadline }

    /// The transaction with this key, if live.
    package subscript(key: SIPTransactionKey) -> SIPTransaction<Message>? { transactions[key] }

    /// For a CANCEL server transaction, the live INVITE server transaction it cancels (RFC 3261 §9.2).
    package func inviteTransaction(cancelledBy cancelKey: SIPTransactionKey) -> SIPTransactionKey? {
        guard let key = cancelKey.cancelledInviteKey, transactions[key] != nil else { return nil }
        return key
    }

    // MARK: - Events

    /// Event: the TU sends a request. Creates a client transaction (INVITE or non-INVITE by
    /// `method`) and starts it.
    /// - Parameters:
    ///   - request: The encoded request, retransmitted as is.
    ///   - method: The request method; ACK is refused (it is sent outside transactions).
    ///   - branch: The branch of the top Via the request carries.
    ///   - reliableTransport: Whether it goes over TCP, TLS or SCTP.
    ///   - now: The current time.
    /// - Returns: The new transaction's key and the outputs (the first transmission).
    package mutating func sendRequest(
        _ request: Message, method: String, branch: String, reliableTransport: Bool, now: MediaTime
    ) throws(SIPTransactionError) -> (key: SIPTransactionKey, outputs: [Output]) {
        let key = try SIPTransactionKey.client(branch: branch, method: method)
        guard transactions[key] == nil else { throw .duplicateTransaction }
        guard transactions.count < capacity else { throw .tableFull }
        let actions: [SIPTransactionAction<Message>]
        if key.isInvite {
            var t = SIPInviteClientTransaction(request: request, reliableTransport: reliableTransport, configuration: configuration)
            actions = t.start()
            transactions[key] = .inviteClient(t)
        } else {
            var t = SIPNonInviteClientTransaction(request: request, reliableTransport: reliableTransport, configuration: configuration)
            actions = t.start()
            transactions[key] = .nonInviteClient(t)
        }
        return (key, apply(actions, for: key, at: now))
    }

    /// Event: a response arrived. Matches it to a client transaction by its top Via branch and
    /// CSeq method (§17.1.3).
    package mutating func receiveResponse(
        _ response: Message, statusCode: Int, branch: String, cseqMethod: String, now: MediaTime
    ) -> ResponseResult {
        guard let key = try? SIPTransactionKey.client(branch: branch, method: cseqMethod),
            let transaction = transactions[key]
        else { return .unmatched }
        var updated = transaction
        guard let actions = updated.withClient({ $0.receiveResponse(response, statusCode: statusCode) }) else { return .unmatched }
        transactions[key] = updated
        return .matched(apply(actions, for: key, at: now))
    }

    /// Event: a request arrived. Matches it to a server transaction (§17.2.3); a retransmission
    /// or ACK goes to its transaction, any other request creates one.
    /// - Throws: the key errors of ``SIPTransactionKey/server(for:)`` and
    ///   ``SIPTransactionError/tableFull`` (the driver answers 503 statelessly).
    ///   A new request beyond ``serverCapacity`` throws ``SIPTransactionError/tableFull``, and
    ///   one beyond `source`'s share ``SIPTransactionError/sourceLimit``.
    /// - Parameter source: Who sent it (the IP address the packet came from), for the per-source
    ///   limit; empty for a source exempt from it (a trusted proxy).
    package mutating func receiveRequest(
        _ request: Message, identity: SIPTransactionRequestIdentity, source: String = "", reliableTransport: Bool,
        now: MediaTime
    ) throws(SIPTransactionError) -> RequestResult {
        let key = try SIPTransactionKey.server(for: identity)
        let isACK = identity.method == "ACK"
        if var transaction = transactions[key] {
            let actions: [SIPTransactionAction<Message>]
            if isACK, case .inviteServer(var t) = transaction {
                actions = t.receiveACK(request)
                transaction = .inviteServer(t)
            } else {
                actions = transaction.withServer { $0.receiveRetransmission() } ?? []
            }
            transactions[key] = transaction
            return .matched(key, apply(actions, for: key, at: now))
        }
        if isACK { return .unmatchedACK }
        guard transactions.count < capacity, sourceOfServerTransaction.count < serverCapacity else { throw .tableFull }
        if !source.isEmpty {
            guard serverCountBySource[source, default: 0] < serverCapacityPerSource else { throw .sourceLimit }
            serverCountBySource[source, default: 0] += 1
        }
        sourceOfServerTransaction[key] = source
        let actions: [SIPTransactionAction<Message>]
        if key.isInvite {
            var t = SIPInviteServerTransaction(request: request, reliableTransport: reliableTransport, configuration: configuration)
            actions = t.start()
            transactions[key] = .inviteServer(t)
        } else {
            var t = SIPNonInviteServerTransaction(request: request, reliableTransport: reliableTransport, configuration: configuration)
            actions = t.start()
            transactions[key] = .nonInviteServer(t)
        }
        return .created(key, apply(actions, for: key, at: now))
    }

    /// Event: the TU sends a response on a server transaction.
    /// - Throws: ``SIPTransactionError/unknownTransaction``, ``SIPTransactionError/notAServerTransaction``,
    ///   and the state errors of the server transactions.
    package mutating func sendResponse(
        _ response: Message, statusCode: Int, on key: SIPTransactionKey, now: MediaTime
    ) throws(SIPTransactionError) -> [Output] {
        guard var transaction = transactions[key] else { throw .unknownTransaction }
        guard let actions = try transaction.withServer({ server throws(SIPTransactionError) in
            try server.sendResponse(response, statusCode: statusCode)
        }) else { throw .notAServerTransaction }
        transactions[key] = transaction
        return apply(actions, for: key, at: now)
    }

    /// Event: the transport failed to send a message of the transaction `key`.
    package mutating func transportError(on key: SIPTransactionKey, now: MediaTime) -> [Output] {
        guard var transaction = transactions[key] else { return [] }
        let actions = transaction.transportError()
        transactions[key] = transaction
        return apply(actions, for: key, at: now)
    }

    /// Event: a TCP or TLS connection closed. Every client transaction whose request went over
    /// it (`sentOver` says which) and that still waits for a final response fails at once with
    /// ``SIPTransactionAction/transportFailed`` (RFC 3261 §17.1.4, §18.4), instead of at timer B
    /// or F. Outputs come grouped by transaction, in the order of the keys' descriptions.
    /// - Parameters:
    ///   - now: The current time.
    ///   - sentOver: Whether a client transaction's request went over the lost connection.
    package mutating func connectionLost(now: MediaTime, where sentOver: (Message) -> Bool) -> [Output] {
        feedClientTransactions(now: now, where: sentOver) { $0.connectionLost() }
    }

    /// Event: an ICMP error said a UDP destination is unreachable. Every client transaction
    /// whose request went there (`sentTo` says which) and that has had no response yet fails at
    /// once with ``SIPTransactionAction/transportFailed`` (RFC 3261 §18.4) instead of at timer B
    /// or F. Outputs come grouped by transaction, in the order of the keys' descriptions.
    /// - Parameters:
    ///   - now: The current time.
    ///   - sentTo: Whether a client transaction's request went to the unreachable destination.
    package mutating func destinationUnreachable(now: MediaTime, where sentTo: (Message) -> Bool) -> [Output] {
        feedClientTransactions(now: now, where: sentTo) { $0.destinationUnreachable() }
    }

    /// Feeds `event` to every client transaction whose request `matches`, in the order of the
    /// keys' descriptions, and performs what it returns.
    private mutating func feedClientTransactions(
        now: MediaTime, where matches: (Message) -> Bool,
        _ event: (inout SIPTransaction<Message>) -> [SIPTransactionAction<Message>]
    ) -> [Output] {
        let affected = transactions.filter { $0.value.isClient && matches($0.value.request) }.map(\.key)
        var outputs: [Output] = []
        for key in affected.sorted(by: { $0.description < $1.description }) {
            guard var transaction = transactions[key] else { continue }
            let actions = event(&transaction)
            transactions[key] = transaction
            outputs += apply(actions, for: key, at: now)
        }
        return outputs
    }

    /// Event: time passed. Fires every timer due at or before `now`, in deadline order; timers a
    /// firing restarts are measured from its deadline, so late calls keep the exact schedule.
    package mutating func advance(to now: MediaTime) -> [Output] {
        var outputs: [Output] = []
        while let due = timers.popDue(notAfter: now) {
            guard var transaction = transactions[due.id.key] else { continue }
            let actions = transaction.timerFired(due.id.timer)
            transactions[due.id.key] = transaction
            outputs += apply(actions, for: due.id.key, at: due.deadline)
        }
        return outputs
    }

    /// Performs the timer and lifetime actions, returning the rest for the driver.
    private mutating func apply(_ actions: [SIPTransactionAction<Message>], for key: SIPTransactionKey, at now: MediaTime) -> [Output] {
        var outputs: [Output] = []
        for action in actions {
            switch action {
            case .startTimer(let timer, let after):
                timers.schedule(.init(key: key, timer: timer), at: now + after)
            case .cancelTimer(let timer):
                timers.cancel(.init(key: key, timer: timer))
            case .terminated:
                transactions.removeValue(forKey: key)
                if let source = sourceOfServerTransaction.removeValue(forKey: key) {
                    serverCountBySource.decrementCount(source)
                }
                timers.cancelAll(for: key)
                outputs.append(Output(key: key, action: action))
            case .transmit, .transmitACK, .sendTrying, .deliverResponse, .deliverRequest, .timedOut, .transportFailed:
                outputs.append(Output(key: key, action: action))
            }
        }
        return outputs
    }
}

extension SIPTransactionTable: Sendable where Message: Sendable {}
extension SIPTransactionTable.Output: Sendable where Message: Sendable {}
extension SIPTransactionTable.Output: Equatable where Message: Equatable {}
extension SIPTransactionTable.ResponseResult: Sendable where Message: Sendable {}
extension SIPTransactionTable.ResponseResult: Equatable where Message: Equatable {}
extension SIPTransactionTable.RequestResult: Sendable where Message: Sendable {}
extension SIPTransactionTable.RequestResult: Equatable where Message: Equatable {}
