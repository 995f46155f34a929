/// A SIP request or response.
public enum SIPMessage: Sendable, Equatable {
    /// A request.
    case request(SIPRequest)
    /// A response.
    case response(SIPResponse)

    /// The header fields.
    public var headers: SIPHeaders {
        switch self {
        case .request(let r): r.headers
        case .response(let r): r.headers
        }
    }

    /// The body bytes.
    public var body: [UInt8] {
        switch self {
        case .request(let r): r.body
        case .response(let r): r.body
        }
    }

    /// The request, if this is one.
    public var request: SIPRequest? {
        if case .request(let r) = self { return r }
        return nil
    }

    /// The response, if this is one.
    public var response: SIPResponse? {
        if case .response(let r) = self { return r }
        return nil
    }
}
