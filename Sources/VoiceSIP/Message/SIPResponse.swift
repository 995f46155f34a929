/// A SIP response (RFC 3261 §7.2).
public struct SIPResponse: Sendable, Equatable {
    /// The status code, 100 to 699.
    public var statusCode: Int
    /// The reason phrase (may be empty).
    public var reasonPhrase: String
    /// The header fields.
    public var headers: SIPHeaders
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    public init(statusCode: Int, reasonPhrase: String, headers: SIPHeaders = SIPHeaders(), body: [UInt8] = []) {
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase
        self.headers = headers
        self.body = body
    }

    /// True for 1xx.
    public var isProvisional: Bool { statusCode < 200 }
}
