
/// The non-INVITE server transaction of RFC 3261 §17.2.2.
///
/// A pure value: each event returns the actions the driver performs; timers are relative
/// durations fed back through ``timerFired(_:)``. Not thread-safe; confine it to one isolation domain.
package struct SIPNonInviteServerTransaction<Message> {
    /// The transaction's state (RFC 3261 Figure 8).
    package enum State: Hashable, Sendable {
        /// Created, the request not yet passed to the TU.
        case idle
        /// The request is with the TU; retransmissions are discarded.
        case trying
        /// A provisional response was sent; retransmissions get it again.
        case proceeding
        /// A final response was sent; retransmissions get it again until timer J.
        case completed
        /// Done.
        case terminated
    }

    /// The action type this transaction emits.
    package typealias Action = SIPTransactionAction<Message>

    /// The current state.
    package private(set) var state: State = .idle
    /// The request that created this transaction.
    package let request: Message
    /// The last response the TU sent.
    package private(set) var lastResponse: Message?
    /// Whether the transport is reliable (zero timer J).
    package let reliableTransport: Bool
    /// Timer values.
    package let configuration: SIPTransactionConfiguration

    /// Creates a transaction for a received request; it reaches the TU on ``start()``.
    package init(request: Message, reliableTransport: Bool, configuration: SIPTransactionConfiguration = .rfc3261) {
        self.request = request
        self.reliableTransport = reliableTransport
        self.configuration = configuration
    }

    /// Event: the transaction was created. Passes the request to the TU.
    package mutating func start() -> [Action] {
        guard case .idle = state else { return [] }
        state = .trying
        return [.deliverRequest(request)]
    }

    /// Event: the TU sends a response.
    /// - Throws: ``SIPTransactionError/invalidStatusCode`` outside 100...699;
    ///   ``SIPTransactionError/responseNotAllowed`` once a final response was sent.
    package mutating func sendResponse(_ response: Message, statusCode: Int) throws(SIPTransactionError) -> [Action] {
        guard (100...699).contains(statusCode) else { throw .invalidStatusCode }
        switch state {
        case .trying, .proceeding:
            lastResponse = response
            if statusCode < 200 {
                state = .proceeding
                return [.transmit(response)]
            }
            let j = configuration.initialInterval(of: .j, reliableTransport: reliableTransport)
            if j == .zero {
                state = .terminated
                return [.transmit(response), .terminated]
            }
            state = .completed
            return [.transmit(response), .startTimer(.j, after: j)]
        case .idle, .completed, .terminated:
            throw .responseNotAllowed
        }
    }

    /// Event: a retransmission of the request arrived. Trying discards it; Proceeding and
    /// Completed resend the last response.
    package mutating func receiveRetransmission() -> [Action] {
        switch state {
        case .proceeding, .completed:
            if let lastResponse { return [.transmit(lastResponse)] }
            return []
        case .idle, .trying, .terminated:
            return []
        }
    }

    /// Event: a timer this transaction started has fired. Timers that do not apply to the
    /// current state are ignored.
    package mutating func timerFired(_ timer: SIPTransactionTimer) -> [Action] {
        guard case .completed = state, timer == .j else { return [] }
        state = .terminated
        return [.terminated]
    }

    /// Event: the transport failed to send a response.
    package mutating func transportError() -> [Action] {
        switch state {
        case .idle, .terminated:
            return []
        case .trying, .proceeding, .completed:
            state = .terminated
            return [.transportFailed, .terminated]
        }
    }
}

extension SIPNonInviteServerTransaction: Sendable where Message: Sendable {}
