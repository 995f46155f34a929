import VoiceSupport

/// The INVITE server transaction of RFC 3261 §17.2.1, with the Accepted state of RFC 6026 §7.1.
///
/// A pure value: each event returns the actions the driver performs; timers are relative
/// durations fed back through ``timerFired(_:)``. Not thread-safe; confine it to one isolation domain.
package struct SIPInviteServerTransaction<Message> {
    /// The transaction's state (RFC 3261 Figure 7, RFC 6026 Figure 7).
    package enum State: Hashable, Sendable {
        /// Created, the INVITE not yet passed to the TU.
        case idle
        /// The INVITE is with the TU; `tryingPending` while the 200 ms 100 (Trying) timer runs.
        case proceeding(tryingPending: Bool)
        /// A 300-699 was sent; `retransmitInterval` is the running value of timer G.
        case completed(retransmitInterval: MediaTime)
        /// The ACK arrived; absorbing ACK retransmissions until timer I.
        case confirmed
        /// A 2xx was sent (RFC 6026); absorbing INVITE retransmissions until timer L.
        case accepted
        /// Done.
        case terminated
    }

    /// The action type this transaction emits.
    package typealias Action = SIPTransactionAction<Message>

    /// The current state.
    package private(set) var state: State = .idle
    /// The INVITE that created this transaction.
    package let request: Message
    /// The last response the TU sent, retransmitted when the INVITE is.
    package private(set) var lastResponse: Message?
    /// Whether the transport is reliable (no retransmissions, zero timer I).
    package let reliableTransport: Bool
    /// Timer values.
    package let configuration: SIPTransactionConfiguration

    /// Creates a transaction for a received INVITE; it reaches the TU on ``start()``.
    package init(request: Message, reliableTransport: Bool, configuration: SIPTransactionConfiguration = .rfc3261) {
        self.request = request
        self.reliableTransport = reliableTransport
        self.configuration = configuration
    }

    /// Event: the transaction was created. Passes the INVITE to the TU and starts the 100 (Trying) timer.
    package mutating func start() -> [Action] {
        guard case .idle = state else { return [] }
        state = .proceeding(tryingPending: true)
        return [.deliverRequest(request), .startTimer(.trying, after: configuration.tryingDelay)]
    }

    /// Event: the TU sends a response.
    /// - Throws: ``SIPTransactionError/invalidStatusCode`` outside 100...699;
    ///   ``SIPTransactionError/responseNotAllowed`` after a final non-2xx response, or for a
    ///   non-2xx after a 2xx.
    package mutating func sendResponse(_ response: Message, statusCode: Int) throws(SIPTransactionError) -> [Action] {
        guard (100...699).contains(statusCode) else { throw .invalidStatusCode }
        switch state {
        case .proceeding(let tryingPending):
            var actions: [Action] = tryingPending ? [.cancelTimer(.trying)] : []
            lastResponse = response
            actions.append(.transmit(response))
            switch statusCode {
            case 100...199:
                state = .proceeding(tryingPending: false)
            case 200...299:
                state = .accepted
                actions.append(.startTimer(.l, after: configuration.initialInterval(of: .l, reliableTransport: reliableTransport)))
            default:
                let g = configuration.initialInterval(of: .g, reliableTransport: reliableTransport)
                state = .completed(retransmitInterval: g)
                if !reliableTransport { actions.append(.startTimer(.g, after: g)) }
                actions.append(.startTimer(.h, after: configuration.initialInterval(of: .h, reliableTransport: reliableTransport)))
            }
            return actions
        case .accepted:
            // RFC 6026 §7.1: the TU retransmits its 2xx through the transaction.
            guard (200...299).contains(statusCode) else { throw .responseNotAllowed }
            lastResponse = response
            return [.transmit(response)]
        case .idle, .completed, .confirmed, .terminated:
            throw .responseNotAllowed
        }
    }

    /// Event: a retransmission of the INVITE arrived. Proceeding and Completed resend the last
    /// response; Accepted and Confirmed absorb it.
    package mutating func receiveRetransmission() -> [Action] {
        switch state {
        case .proceeding, .completed:
            if let lastResponse { return [.transmit(lastResponse)] }
            return []
        case .idle, .confirmed, .accepted, .terminated:
            return []
        }
    }

    /// Event: an ACK matching this transaction arrived.
    package mutating func receiveACK(_ ack: Message) -> [Action] {
        switch state {
        case .completed:
            let i = configuration.initialInterval(of: .i, reliableTransport: reliableTransport)
            if i == .zero {
                state = .terminated
                return [.cancelTimer(.g), .cancelTimer(.h), .terminated]
            }
            state = .confirmed
            return [.cancelTimer(.g), .cancelTimer(.h), .startTimer(.i, after: i)]
        case .accepted:
            return [.deliverRequest(ack)]
        case .idle, .proceeding, .confirmed, .terminated:
            return []
        }
    }

    /// Event: a timer this transaction started has fired. Timers that do not apply to the
    /// current state are ignored.
    package mutating func timerFired(_ timer: SIPTransactionTimer) -> [Action] {
        switch (state, timer) {
        case (.proceeding(true), .trying):
            state = .proceeding(tryingPending: false)
            return [.sendTrying]
        case (.completed(let interval), .g):
            let next = configuration.doubled(interval, cappedAtT2: true)
            state = .completed(retransmitInterval: next)
            guard let lastResponse else { return [] }
            return [.transmit(lastResponse), .startTimer(.g, after: next)]
        case (.completed, .h):
            state = .terminated
            return [.cancelTimer(.g), .timedOut(.h), .terminated]
        case (.confirmed, .i), (.accepted, .l):
            state = .terminated
            return [.terminated]
        default:
            return []
        }
    }

    /// Event: the transport failed to send a response of this transaction.
    package mutating func transportError() -> [Action] {
        switch state {
        case .idle, .terminated:
            return []
        case .proceeding, .completed, .confirmed, .accepted:
            state = .terminated
            return [.transportFailed, .terminated]
        }
    }
}

extension SIPInviteServerTransaction: Sendable where Message: Sendable {}
