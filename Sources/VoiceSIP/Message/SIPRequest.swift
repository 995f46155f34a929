/// A SIP request (RFC 3261 §7.1).
public struct SIPRequest: Sendable, Equatable {
    /// The method.
    public var method: SIPMethod
    /// The Request-URI.
    public var uri: SIPURI
    /// The header fields.
    public var headers: SIPHeaders
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a request.
    public init(method: SIPMethod, uri: SIPURI, headers: SIPHeaders = SIPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.body = body
    }
}
