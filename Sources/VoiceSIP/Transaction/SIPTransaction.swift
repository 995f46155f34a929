import VoiceSupport

/// One of the four RFC 3261 §17 transaction state machines, as the table stores them.
///
/// The machines stay separate types (one per figure of §17), behind the protocols of
/// ``SIPTransactionMachine``; events reach them through ``withMachine(_:)``, ``withClient(_:)``
/// and ``withServer(_:)``. Only ``machine`` and ``init(_:)`` tell the four apart.
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

    /// The machine this is.
    var machine: any SIPTransactionMachine<Message> {
        switch self {
        case .inviteClient(let t): t
        case .nonInviteClient(let t): t
        case .inviteServer(let t): t
        case .nonInviteServer(let t): t
        }
    }

    /// Wraps a machine of one of the four types.
    init?(_ machine: any SIPTransactionMachine<Message>) {
        switch machine {
        case let t as SIPInviteClientTransaction<Message>: self = .inviteClient(t)
        case let t as SIPNonInviteClientTransaction<Message>: self = .nonInviteClient(t)
        case let t as SIPInviteServerTransaction<Message>: self = .inviteServer(t)
        case let t as SIPNonInviteServerTransaction<Message>: self = .nonInviteServer(t)
        default: return nil
        }
    }

    /// The request that created the transaction.
    package var request: Message { machine.request }

    /// Whether this is a client transaction (INVITE or not).
    package var isClient: Bool { machine is any SIPClientTransactionMachine<Message> }

    /// Runs `body` on whichever machine this is and keeps the machine's new state.
    mutating func withMachine<Result>(_ body: (inout any SIPTransactionMachine<Message>) -> Result) -> Result {
        var machine = self.machine
        defer { self = Self(machine) ?? self }
        return body(&machine)
    }

    /// Runs `body` on the client machine and keeps its new state; nil for a server transaction.
    mutating func withClient<Result>(_ body: (inout any SIPClientTransactionMachine<Message>) -> Result) -> Result? {
        guard var client = machine as? any SIPClientTransactionMachine<Message> else { return nil }
        defer { self = Self(client) ?? self }
        return body(&client)
    }

    /// Runs `body` on the server machine and keeps its new state; nil for a client transaction.
    mutating func withServer<Result, Failure: Error>(
        _ body: (inout any SIPServerTransactionMachine<Message>) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        guard var server = machine as? any SIPServerTransactionMachine<Message> else { return nil }
        defer { self = Self(server) ?? self }
        return try body(&server)
    }

    /// Feeds a fired timer to whichever machine this is.
    mutating func timerFired(_ timer: SIPTransactionTimer) -> [Action] { withMachine { $0.timerFired(timer) } }

    /// Feeds the loss of the connection a client transaction's request went over to it; server
    /// transactions are unaffected (their responses follow RFC 3261 §18.2.2 on their own).
    mutating func connectionLost() -> [Action] { withClient { $0.connectionLost() } ?? [] }

    /// Feeds an ICMP "unreachable" for the request's destination to a client transaction;
    /// server transactions are unaffected.
    mutating func destinationUnreachable() -> [Action] { withClient { $0.destinationUnreachable() } ?? [] }

    /// Feeds a transport failure to whichever machine this is.
    mutating func transportError() -> [Action] { withMachine { $0.transportError() } }
}

extension SIPTransaction: Sendable where Message: Sendable {}
