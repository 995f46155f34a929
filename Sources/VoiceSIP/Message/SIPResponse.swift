/// A SIP response (RFC 3261 §7.2).
package struct SIPResponse: Sendable, Equatable {
    /// The status code, 100 to 699.
    package var statusCode: Int
    /// The reason phrase (may be empty).
    package var reasonPhrase: String
    /// The header fields.
    package var headers: SIPHeaders
    /// The body bytes.
    package var body: [UInt8]

    /// Creates a response.
    package init(statusCode: Int, reasonPhrase: String, headers: SIPHeaders = SIPHeaders(), body: [UInt8] = []) {
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase
        self.headers = headers
        self.body = body
    }

    /// True for 1xx.
    package var isProvisional: Bool { statusCode < 200 }
}
