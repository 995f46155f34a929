/// A SIP request or response.
package enum SIPMessage: Sendable, Equatable {
    /// A request.
    case request(SIPRequest)
    /// A response.
    case response(SIPResponse)

    /// The header fields.
    package var headers: SIPHeaders {
        switch self {
        case .request(let r): r.headers
        case .response(let r): r.headers
        }
    }

    /// The body bytes.
    package var body: [UInt8] {
        switch self {
        case .request(let r): r.body
        case .response(let r): r.body
        }
    }

    /// The request, if this is one.
    package var request: SIPRequest? {
        if case .request(let r) = self { return r }
        return nil
    }

    /// The response, if this is one.
    package var response: SIPResponse? {
        if case .response(let r) = self { return r }
        return nil
    }
}
