/// The parts of a received request that RFC 3261 §17.2.3 matches server transactions on,
/// taken as plain values so the transaction layer does not depend on the message parser.
public struct SIPTransactionRequestIdentity: Hashable, Sendable {
    /// The values an RFC 2543 peer's request is matched on when its branch lacks the magic cookie.
    public struct Legacy: Hashable, Sendable {
        /// The Request-URI as received.
        public var requestURI: String
        /// The Call-ID.
        public var callID: String
        /// The From tag, if any.
        public var fromTag: String?
        /// The CSeq sequence number.
        public var cseqNumber: UInt32

        /// Creates the legacy matching values.
        public init(requestURI: String, callID: String, fromTag: String?, cseqNumber: UInt32) {
            self.requestURI = requestURI
            self.callID = callID
            self.fromTag = fromTag
            self.cseqNumber = cseqNumber
        }
    }

    /// The request method (case-sensitive, e.g. "INVITE", "ACK", "CANCEL").
    public var method: String
    /// The branch parameter of the top Via, if present.
    public var branch: String?
    /// The host of the top Via's sent-by.
    public var sentByHost: String
    /// The port of the top Via's sent-by, if present.
    public var sentByPort: Int?
    /// The top Via's transport ("UDP", "TCP", "TLS", ...), which gives the default port.
    public var transport: String
    /// Values for matching requests from RFC 2543 peers; only consulted without a magic-cookie branch.
    public var legacy: Legacy?

    /// Creates a request identity.
    public init(
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
