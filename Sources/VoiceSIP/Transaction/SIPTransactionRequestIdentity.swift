/// The parts of a received request that RFC 3261 §17.2.3 matches server transactions on,
/// taken as plain values so the transaction layer does not depend on the message parser.
package struct SIPTransactionRequestIdentity: Hashable, Sendable {
    /// The values an RFC 2543 peer's request is matched on when its branch lacks the magic cookie.
    package struct Legacy: Hashable, Sendable {
        /// The Request-URI as received.
        package var requestURI: String
        /// The Call-ID.
        package var callID: String
        /// The From tag, if any.
        package var fromTag: String?
        /// The CSeq sequence number.
        package var cseqNumber: UInt32

        /// Creates the legacy matching values.
        package init(requestURI: String, callID: String, fromTag: String?, cseqNumber: UInt32) {
            self.requestURI = requestURI
            self.callID = callID
            self.fromTag = fromTag
            self.cseqNumber = cseqNumber
        }
    }

    /// The request method (case-sensitive, e.g. "INVITE", "ACK", "CANCEL").
    package var method: String
    /// The branch parameter of the top Via, if present.
    package var branch: String?
    /// The host of the top Via's sent-by.
    package var sentByHost: String
    /// The port of the top Via's sent-by, if present.
    package var sentByPort: Int?
    /// The top Via's transport ("UDP", "TCP", "TLS", ...), which gives the default port.
    package var transport: String
    /// Values for matching requests from RFC 2543 peers; only consulted without a magic-cookie branch.
    package var legacy: Legacy?

    /// Creates a request identity.
    package init(
        method: String, branch: String?, sentByHost: String, sentByPort: Int? = nil, transport: String = "UDP", legacy: Legacy? = nil
    ) {
        self.method = method
        self.branch = branch
        self.sentByHost = sentByHost
        self.sentByPort = sentByPort
        self.transport = transport
        self.legacy = legacy
    }
}
