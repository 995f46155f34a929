/// One of the four RFC 3261 §17 transaction state machines, as the table stores them.
package enum SIPTransaction<Message> {
    /// RFC 3261 §17.1.1.
    case inviteClient(SIPInviteClientTransaction<Message>)
    /// RFC 3261 §17.1.2.
    case nonInviteClient(SIPNonInviteClientTransaction<Message>)
    /// RFC 3261 §17.2.1.
    case inviteServer(SIPInviteServerTransaction<Message>)
    /// RFC 3261 §17.2.2.
    case nonInviteServer(SIPNonInviteServerTransaction<Message>)

    /// The action type the transactions emit.
    package typealias Action = SIPTransactionAction<Message>

    /// The request that created the transaction.
    package var request: Message {
        switch self {
        case .inviteClient(let t): return t.request
        case .nonInviteClient(let t): return t.request
        case .inviteServer(let t): return t.request
        case .nonInviteServer(let t): return t.request
        }
    }

    /// Feeds a fired timer to whichever machine this is.
    mutating func timerFired(_ timer: SIPTransactionTimer) -> [Action] {
        switch self {
        case .inviteClient(var t):
            let actions = t.timerFired(timer)
            self = .inviteClient(t)
            return actions
        case .nonInviteClient(var t):
            let actions = t.timerFired(timer)
            self = .nonInviteClient(t)
            return actions
        case .inviteServer(var t):
            let actions = t.timerFired(timer)
            self = .inviteServer(t)
            return actions
        case .nonInviteServer(var t):
            let actions = t.timerFired(timer)
            self = .nonInviteServer(t)
            return actions
        }
    }

    /// Whether this is a client transaction (INVITE or not).
    package var isClient: Bool {
        switch self {
        case .inviteClient, .nonInviteClient: return true
        case .inviteServer, .nonInviteServer: return false
        }
    }

    /// Feeds the loss of the connection a client transaction's request went over to it; server
    /// transactions are unaffected (their responses follow RFC 3261 §18.2.2 on their own).
    mutating func connectionLost() -> [Action] {
        switch self {
        case .inviteClient(var t):
            let actions = t.connectionLost()
            self = .inviteClient(t)
            return actions
        case .nonInviteClient(var t):
            let actions = t.connectionLost()
            self = .nonInviteClient(t)
            return actions
        case .inviteServer, .nonInviteServer:
            return []
        }
    }

    /// Feeds an ICMP "unreachable" for the request's destination to a client transaction;
    /// server transactions are unaffected.
    mutating func destinationUnreachable() -> [Action] {
        switch self {
        case .inviteClient(var t):
            let actions = t.destinationUnreachable()
            self = .inviteClient(t)
            return actions
        case .nonInviteClient(var t):
            let actions = t.destinationUnreachable()
            self = .nonInviteClient(t)
            return actions
        case .inviteServer, .nonInviteServer:
            return []
        }
    }

    /// Feeds a transport failure to whichever machine this is.
    mutating func transportError() -> [Action] {
        switch self {
        case .inviteClient(var t):
            let actions = t.transportError()
            self = .inviteClient(t)
            return actions
        case .nonInviteClient(var t):
            let actions = t.transportError()
            self = .nonInviteClient(t)
            return actions
        case .inviteServer(var t):
            let actions = t.transportError()
            self = .inviteServer(t)
            return actions
        case .nonInviteServer(var t):
            let actions = t.transportError()
            self = .nonInviteServer(t)
            return actions
        }
    }
}

extension SIPTransaction: Sendable where Message: Sendable {}
