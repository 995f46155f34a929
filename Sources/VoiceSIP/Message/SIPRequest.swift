/// A SIP request (RFC 3261 §7.1).
package struct SIPRequest: Sendable, Equatable {
    /// The method.
    package var method: SIPMethod
    /// The Request-URI.
    package var uri: SIPURI
    /// The header fields.
    package var headers: SIPHeaders
    /// The body bytes.
    package var body: [UInt8]

    /// Creates a request.
    package init(method: SIPMethod, uri: SIPURI, headers: SIPHeaders = SIPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.body = body
    }
}
