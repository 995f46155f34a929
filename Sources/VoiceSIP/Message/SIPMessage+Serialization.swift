extension SIPMessage {
    /// The wire form: start line, header fields in order with Content-Length set to the body
    /// size, a blank line, then the body. Lines end in CRLF.
    package func serialized() -> [UInt8] {
        let startLine: String
        switch self {
        case .request(let r): startLine = "\(r.method) \(r.uri) SIP/2.0"
        case .response(let r): startLine = "SIP/2.0 \(r.statusCode) \(r.reasonPhrase)"
        }
        var headers = self.headers
        if headers.contains("content-length") {
            headers.set("Content-Length", String(body.count))
        } else {
            headers.add("Content-Length", String(body.count))
        }
        var text = startLine + "\r\n"
        for field in headers { text += "\(field.name): \(field.value)\r\n" }
        text += "\r\n"
        return Array(text.utf8) + body
    }
}

extension SIPRequest {
    /// The wire form of this request.
    package func serialized() -> [UInt8] { SIPMessage.request(self).serialized() }
}

extension SIPResponse {
    /// The wire form of this response.
    package func serialized() -> [UInt8] { SIPMessage.response(self).serialized() }
}
