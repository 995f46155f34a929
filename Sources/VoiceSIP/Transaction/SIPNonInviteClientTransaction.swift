import VoiceSupport

/// The non-INVITE client transaction of RFC 3261 §17.1.2.
///
/// A pure value: each event returns the actions the driver performs; timers are relative
/// durations fed back through ``timerFired(_:)``. Not thread-safe; confine it to one isolation domain.
package struct SIPNonInviteClientTransaction<Message> {
    /// The transaction's state (RFC 3261 Figure 6).
    package enum State: Hashable, Sendable {
        /// Created, the request not yet sent.
        case idle
        /// Request sent; `retransmitInterval` is the running value of timer E.
        case trying(retransmitInterval: MediaTime)
        /// A provisional response arrived; retransmissions continue every T2.
        case proceeding
        /// A final response arrived; absorbing retransmissions until timer K.
        case completed
        /// Done.
        case terminated
    }

    /// The action type this transaction emits.
    package typealias Action = SIPTransactionAction<Message>

    /// The current state.
    package private(set) var state: State = .idle
    /// The request this transaction sends and retransmits.
    package let request: Message
    /// Whether the transport is reliable (no retransmissions, zero timer K).
    package let reliableTransport: Bool
    /// Timer values.
    package let configuration: SIPTransactionConfiguration

    /// Creates a transaction for `request`; nothing is sent until ``start()``.
    package init(request: Message, reliableTransport: Bool, configuration: SIPTransactionConfiguration = .rfc3261) {
        self.request = request
        self.reliableTransport = reliableTransport
        self.configuration = configuration
    }

    /// Event: the TU hands the request to the transaction. Sends it and starts timers E and F.
    package mutating func start() -> [Action] {
        guard case .idle = state else { return [] }
        let e = configuration.initialInterval(of: .e, reliableTransport: reliableTransport)
        state = .trying(retransmitInterval: e)
        var actions: [Action] = [.transmit(request)]
        if !reliableTransport { actions.append(.startTimer(.e, after: e)) }
        actions.append(.startTimer(.f, after: configuration.initialInterval(of: .f, reliableTransport: reliableTransport)))
        return actions
    }

    /// Event: a response matching this transaction arrived. Status codes outside 100...699 are dropped.
    package mutating func receiveResponse(_ response: Message, statusCode: Int) -> [Action] {
        guard (100...699).contains(statusCode) else { return [] }
        switch state {
        case .idle, .completed, .terminated:
            return []
        case .trying, .proceeding:
            let deliver = Action.deliverResponse(response, statusCode: statusCode)
            if statusCode < 200 {
                // Timer E keeps running; its next firing resets it to T2.
                state = .proceeding
                return [deliver]
            }
            let k = configuration.initialInterval(of: .k, reliableTransport: reliableTransport)
            if k == .zero {
                state = .terminated
                return [.cancelTimer(.e), .cancelTimer(.f), deliver, .terminated]
            }
            state = .completed
            return [.cancelTimer(.e), .cancelTimer(.f), deliver, .startTimer(.k, after: k)]
        }
    }

    /// Event: a timer this transaction started has fired. Timers that do not apply to the
    /// current state are ignored.
    package mutating func timerFired(_ timer: SIPTransactionTimer) -> [Action] {
        switch (state, timer) {
        case (.trying(let interval), .e):
            let next = configuration.doubled(interval, cappedAtT2: true)
            state = .trying(retransmitInterval: next)
            return [.transmit(request), .startTimer(.e, after: next)]
        case (.proceeding, .e):
            return [.transmit(request), .startTimer(.e, after: configuration.t2)]
        case (.trying, .f), (.proceeding, .f):
            state = .terminated
            return [.cancelTimer(.e), .timedOut(.f), .terminated]
        case (.completed, .k):
            state = .terminated
            return [.terminated]
        default:
            return []
        }
    }

    /// Event: the TCP or TLS connection the request went over closed (RFC 3261 §17.1.4, §18.4).
    /// While no final response has arrived the transaction fails at once, as for a transport
    /// error, instead of waiting for timer F; once completed it is unaffected.
    package mutating func connectionLost() -> [Action] {
        switch state {
        case .trying, .proceeding:
            state = .terminated
            return [.cancelTimer(.e), .cancelTimer(.f), .transportFailed, .terminated]
        case .idle, .completed, .terminated:
            return []
        }
    }

    /// Event: an ICMP error said the request's UDP destination is unreachable (RFC 3261 §18.4:
    /// a transport failure). Only a transaction still in Trying fails: once anything has
    /// answered, the peer is evidently there, so a late or forged ICMP message changes nothing.
    package mutating func destinationUnreachable() -> [Action] {
        guard case .trying = state else { return [] }
        state = .terminated
        return [.cancelTimer(.e), .cancelTimer(.f), .transportFailed, .terminated]
    }

    /// Event: the transport failed to send the request.
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

extension SIPNonInviteClientTransaction: Sendable where Message: Sendable {}
