/// Why a lookup gave no usable records.
package struct DNSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    package struct Kind: Hashable, Sendable, CustomStringConvertible {
        package let description: String
        private init(_ description: String) { self.description = description }

        /// The name does not exist (NXDOMAIN).
        package static let nameNotFound = Kind("no such name")
        /// The name exists but has no records of the type asked (NODATA).
        package static let noRecords = Kind("no records of that type")
        /// The only SRV record's target is `.`: the service is not offered (RFC 2782).
        package static let serviceNotOffered = Kind("service not offered")
        /// The server failed or refused (SERVFAIL, REFUSED, another RCODE).
        package static let serverFailure = Kind("server failure")
        /// No server answered in time.
        package static let timeout = Kind("timed out")
        /// The answer was not a well-formed DNS message.
        package static let malformed = Kind("malformed answer")
        /// The answer ended inside a record or name (or came truncated and could not be fetched whole).
        package static let truncated = Kind("truncated answer")
        /// The answer is larger than this client reads (records or message size).
        package static let oversized = Kind("oversized answer")
        /// The answer's question or records are for a name that was not asked.
        package static let nameMismatch = Kind("answer for another name")
        /// The CNAME chain loops or is longer than this client follows.
        package static let aliasLoop = Kind("CNAME loop")
        /// No name server to ask, the resolver shut down, or another local failure.
        package static let resolverFailure = Kind("resolver failure")
    }

    /// What went wrong.
    package let kind: Kind
    /// The question, and what was seen.
    package let detail: String
    /// How long the failure may be cached (RFC 2308), for NXDOMAIN and NODATA; nil: not cached.
    package let negativeTTL: UInt32?

    package init(_ kind: Kind, _ detail: String, negativeTTL: UInt32? = nil) {
        self.kind = kind
        self.detail = detail
        self.negativeTTL = negativeTTL
    }

    package var description: String { "\(kind): \(detail)" }
}
