extension SIPResponse {
    /// Builds a response to `request` as RFC 3261 §8.2.6.2 says: the Via, From, Call-ID and CSeq
    /// fields copied in order, To copied with `toTag` added when it carries none, and Timestamp
    /// echoed (§8.2.6.1). Adds `Content-Length: 0`; a caller that sets a body updates it.
    /// - Parameters:
    ///   - request: The request being answered.
    ///   - statusCode: 100 to 699.
    ///   - reasonPhrase: Defaults to the RFC phrase for the code.
    ///   - toTag: The UAS's tag; ignored for 100 Trying (§8.2.6.2) and when To already has one.
    package init(replyingTo request: SIPRequest, statusCode: Int, reasonPhrase: String? = nil, toTag: String? = nil) {
        var headers = SIPHeaders()
        for field in request.headers {
            switch field.key {
            case "via", "from", "call-id", "cseq", "timestamp":
                headers.add(field.name, field.value)
            case "to":
                var value = field.value
                if statusCode != 100, let toTag, let to = try? SIPNameAddress(parsing: value), to.tag == nil {
                    var tagged = to
                    tagged.parameters.set("tag", toTag)
                    value = tagged.description
                }
                headers.add(field.name, value)
            default:
                continue
            }
        }
        headers.add("Content-Length", "0")
        self.init(
            statusCode: statusCode,
            reasonPhrase: reasonPhrase ?? SIPResponse.standardReasonPhrase(for: statusCode),
            headers: headers
        )
    }

    /// Replaces the body and sets Content-Type and Content-Length to match.
    package mutating func setBody(_ body: [UInt8], contentType: String) {
        self.body = body
        headers.remove("content-type")
        headers.remove("content-length")
        if !body.isEmpty { headers.add("Content-Type", contentType) }
        headers.add("Content-Length", String(body.count))
    }

    /// The reason phrase RFC 3261 §21 (and its extensions) gives a status code; for an unknown
    /// code, the class's generic phrase.
    package static func standardReasonPhrase(for statusCode: Int) -> String {
        if let phrase = standardReasonPhrases[statusCode] { return phrase }
        switch statusCode {
        case 100..<200: return "Session Progress"
        case 200..<300: return "OK"
        case 300..<400: return "Redirection"
        case 400..<500: return "Client Error"
        case 500..<600: return "Server Error"
        default: return "Global Failure"
        }
    }

    private static let standardReasonPhrases: [Int: String] = [
        100: "Trying", 180: "Ringing", 181: "Call Is Being Forwarded", 182: "Queued", 183: "Session Progress",
        200: "OK", 202: "Accepted",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Moved Temporarily", 305: "Use Proxy", 380: "Alternative Service",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required", 408: "Request Timeout",
        409: "Conflict", 410: "Gone", 413: "Request Entity Too Large", 414: "Request-URI Too Long",
        415: "Unsupported Media Type", 416: "Unsupported URI Scheme", 420: "Bad Extension", 421: "Extension Required",
        423: "Interval Too Brief", 426: "Upgrade Required", 429: "Too Many Requests", 480: "Temporarily Unavailable",
        481: "Call/Transaction Does Not Exist", 482: "Loop Detected", 483: "Too Many Hops", 484: "Address Incomplete",
        485: "Ambiguous", 486: "Busy Here", 487: "Request Terminated", 488: "Not Acceptable Here", 491: "Request Pending",
        493: "Undecipherable",
        500: "Server Internal Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Server Time-out", 505: "Version Not Supported", 513: "Message Too Large",
        600: "Busy Everywhere", 603: "Decline", 604: "Does Not Exist Anywhere", 606: "Not Acceptable",
    ]
}
