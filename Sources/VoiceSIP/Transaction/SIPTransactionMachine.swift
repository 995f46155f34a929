import VoiceSupport

/// What each of the four RFC 3261 §17 transaction machines answers to, so that
/// ``SIPTransaction`` forwards an event to whichever machine it holds in one place.
package protocol SIPTransactionMachine<Message> {
    associatedtype Message
    /// The request that created the transaction.
    var request: Message { get }
    /// A timer of this transaction fired.
    mutating func timerFired(_ timer: SIPTransactionTimer) -> [SIPTransactionAction<Message>]
    /// The transport failed to send one of its messages.
    mutating func transportError() -> [SIPTransactionAction<Message>]
}

/// The client machines (§17.1.1, §17.1.2).
package protocol SIPClientTransactionMachine<Message>: SIPTransactionMachine {
    /// A response to the request arrived.
    mutating func receiveResponse(_ response: Message, statusCode: Int) -> [SIPTransactionAction<Message>]
    /// The connection the request went over closed.
    mutating func connectionLost() -> [SIPTransactionAction<Message>]
    /// An ICMP "unreachable" arrived for the request's destination.
    mutating func destinationUnreachable() -> [SIPTransactionAction<Message>]
}

/// The server machines (§17.2.1, §17.2.2).
package protocol SIPServerTransactionMachine<Message>: SIPTransactionMachine {
    /// The TU sends a response.
    mutating func sendResponse(_ response: Message, statusCode: Int) throws(SIPTransactionError) -> [SIPTransactionAction<Message>]
    /// The request arrived again.
    mutating func receiveRetransmission() -> [SIPTransactionAction<Message>]
}

extension SIPInviteClientTransaction: SIPClientTransactionMachine {}
extension SIPNonInviteClientTransaction: SIPClientTransactionMachine {}
extension SIPInviteServerTransaction: SIPServerTransactionMachine {}
extension SIPNonInviteServerTransaction: SIPServerTransactionMachine {}
