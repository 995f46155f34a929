/// Why a transaction or the transaction table refused an event.
package struct SIPTransactionError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidStatusCode
        case responseNotAllowed
        case unknownTransaction
        case duplicateTransaction
        case tableFull
        case sourceLimit
        case invalidBranch
        case invalidMethod
        case invalidSentBy
        case notAServerTransaction
        case ackIsNotATransaction
    }

    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// A status code outside 100...699.
    package static let invalidStatusCode = SIPTransactionError(.invalidStatusCode)
    /// The server transaction's state does not accept this response (e.g. a second final response).
    package static let responseNotAllowed = SIPTransactionError(.responseNotAllowed)
    /// No transaction has this key (it never existed or has terminated).
    package static let unknownTransaction = SIPTransactionError(.unknownTransaction)
    /// A transaction with this key already exists.
    package static let duplicateTransaction = SIPTransactionError(.duplicateTransaction)
    /// The table holds its maximum number of transactions.
    package static let tableFull = SIPTransactionError(.tableFull)
    /// The request's source already has its maximum of pending server transactions.
    package static let sourceLimit = SIPTransactionError(.sourceLimit)
    /// The branch is empty, too long or contains characters outside the token set.
    package static let invalidBranch = SIPTransactionError(.invalidBranch)
    /// The method is empty, too long or not a token.
    package static let invalidMethod = SIPTransactionError(.invalidMethod)
    /// The Via sent-by host is empty or too long, or its port is outside 1...65535.
    package static let invalidSentBy = SIPTransactionError(.invalidSentBy)
    /// A response was sent on a client transaction.
    package static let notAServerTransaction = SIPTransactionError(.notAServerTransaction)
    /// ACK never creates a client transaction (RFC 3261 §17.1).
    package static let ackIsNotATransaction = SIPTransactionError(.ackIsNotATransaction)

    /// A sentence naming the failure.
    package var description: String {
        switch code {
        case .invalidStatusCode: return "SIP transaction: status code outside 100...699"
        case .responseNotAllowed: return "SIP transaction: the server transaction's state does not accept this response"
        case .unknownTransaction: return "SIP transaction: no transaction with this key"
        case .duplicateTransaction: return "SIP transaction: a transaction with this key already exists"
        case .tableFull: return "SIP transaction: the transaction table is full"
        case .sourceLimit: return "SIP transaction: the source has too many pending server transactions"
        case .invalidBranch: return "SIP transaction: Via branch is empty, too long or not a token"
        case .invalidMethod: return "SIP transaction: method is empty, too long or not a token"
        case .invalidSentBy: return "SIP transaction: Via sent-by host is empty or too long, or its port is out of range"
        case .notAServerTransaction: return "SIP transaction: responses can only be sent on server transactions"
        case .ackIsNotATransaction: return "SIP transaction: ACK does not create a client transaction"
        }
    }
}
