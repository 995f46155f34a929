import VoiceSupport

/// The INVITE client transaction of RFC 3261 §17.1.1, with the Accepted state of RFC 6026 §7.2.
///
/// A pure value: each event returns the actions the driver performs. It never reads a clock;
/// timers are relative durations the driver (or ``SIPTransactionTable``) schedules and feeds back
/// through ``timerFired(_:)``. Not thread-safe; confine it to one isolation domain.
package struct SIPInviteClientTransaction<Message> {
    /// The transaction's state (RFC 3261 Figure 5, RFC 6026 Figure 5).
    package enum State: Hashable, Sendable {
        /// Created, the INVITE not yet sent.
        case idle
        /// INVITE sent; `retransmitInterval` is the running value of timer A.
        case calling(retransmitInterval: MediaTime)
        /// A provisional response arrived; no more retransmissions.
        case proceeding
        /// A 300-699 arrived and was ACKed; absorbing retransmissions until timer D.
        case completed
        /// A 2xx arrived (RFC 6026); passing 2xx retransmissions to the TU until timer M.
        case accepted
        /// Done.
        case terminated
    }

    /// The action type this transaction emits.
    package typealias Action = SIPTransactionAction<Message>

    /// The current state.
    package private(set) var state: State = .idle
    /// The INVITE this transaction sends and retransmits.
    package let request: Message
    /// Whether the transport is reliable (no retransmissions, zero timer D).
    package let reliableTransport: Bool
    /// Timer values.
    package let configuration: SIPTransactionConfiguration

    /// Creates a transaction for `request`; nothing is sent until ``start()``.
    package init(request: Message, reliableTransport: Bool, configuration: SIPTransactionConfiguration = .rfc3261) {
        self.request = request
        self.reliableTransport = reliableTransport
        self.configuration = configuration
    }

    /// Event: the TU hands the INVITE to the transaction. Sends it and starts timers A and B.
    package mutating func start() -> [Action] {
        guard case .idle = state else { return [] }
        let a = configuration.initialInterval(of: .a, reliableTransport: reliableTransport)
        state = .calling(retransmitInterval: a)
        var actions: [Action] = [.transmit(request)]
        if !reliableTransport { actions.append(.startTimer(.a, after: a)) }
        actions.append(.startTimer(.b, after: configuration.initialInterval(of: .b, reliableTransport: reliableTransport)))
        return actions
    }

    /// Event: a response matching this transaction arrived. Status codes outside 100...699 are dropped.
    package mutating func receiveResponse(_ response: Message, statusCode: Int) -> [Action] {
        guard (100...699).contains(statusCode) else { return [] }
        switch state {
        case .idle, .terminated:
            return []
        case .calling:
            return [.cancelTimer(.a), .cancelTimer(.b)] + leaveCallingOrProceeding(response, statusCode: statusCode)
        case .proceeding:
            return leaveCallingOrProceeding(response, statusCode: statusCode)
        case .completed:
            // Retransmitted final responses are ACKed again and not passed up.
            return statusCode >= 300 ? [.transmitACK(forResponse: response)] : []
        case .accepted:
            return (200...299).contains(statusCode) ? [.deliverResponse(response, statusCode: statusCode)] : []
        }
    }

    private mutating func leaveCallingOrProceeding(_ response: Message, statusCode: Int) -> [Action] {
        let deliver = Action.deliverResponse(response, statusCode: statusCode)
        switch statusCode {
        case 100...199:
            state = .proceeding
            return [deliver]
        case 200...299:
            state = .accepted
            return [deliver, .startTimer(.m, after: configuration.initialInterval(of: .m, reliableTransport: reliableTransport))]
        default:
            let d = configuration.initialInterval(of: .d, reliableTransport: reliableTransport)
            if d == .zero {
                state = .terminated
                return [deliver, .transmitACK(forResponse: response), .terminated]
            }
            state = .completed
            return [deliver, .transmitACK(forResponse: response), .startTimer(.d, after: d)]
        }
    }

    /// Event: a timer this transaction started has fired. Timers that do not apply to the
    /// current state are ignored.
    package mutating func timerFired(_ timer: SIPTransactionTimer) -> [Action] {
        switch (state, timer) {
        case (.calling(let interval), .a):
            let next = configuration.doubled(interval, cappedAtT2: false)
            state = .calling(retransmitInterval: next)
            return [.transmit(request), .startTimer(.a, after: next)]
        case (.calling, .b):
            state = .terminated
            return [.cancelTimer(.a), .timedOut(.b), .terminated]
        case (.completed, .d), (.accepted, .m):
            state = .terminated
            return [.terminated]
        default:
            return []
        }
    }

    /// Event: the TCP or TLS connection the INVITE went over closed (RFC 3261 §17.1.4, §18.4).
    /// While no final response has arrived the transaction fails at once, as for a transport
    /// error, instead of waiting for timer B; once completed or accepted it is unaffected and
    /// ends on timer D or M as usual.
    package mutating func connectionLost() -> [Action] {
        switch state {
        case .calling, .proceeding:
            state = .terminated
            return [.cancelTimer(.a), .cancelTimer(.b), .transportFailed, .terminated]
        case .idle, .completed, .accepted, .terminated:
            return []
        }
    }

    /// Event: an ICMP error said the INVITE's UDP destination is unreachable (RFC 3261 §18.4:
    /// a transport failure). Only a transaction still in Calling fails: once anything has
    /// answered, the peer is evidently there, so a late or forged ICMP message changes nothing.
    package mutating func destinationUnreachable() -> [Action] {
        guard case .calling = state else { return [] }
        state = .terminated
        return [.cancelTimer(.a), .cancelTimer(.b), .transportFailed, .terminated]
    }

    /// Event: the transport failed to send a message of this transaction.
    package mutating func transportError() -> [Action] {
        switch state {
        case .idle, .terminated:
            return []
        case .calling, .proceeding, .completed, .accepted:
            state = .terminated
            return [.transportFailed, .terminated]
        }
    }
}

extension SIPInviteClientTransaction: Sendable where Message: Sendable {}
