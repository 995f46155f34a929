
// Building the requests and responses a session sends.
extension SIPInviteSession {
    static let sdpContentType = "application/sdp"

    /// The Allow value.
    static var allowValue: String { allowedMethods.map(\.rawValue).joined(separator: ", ") }

    /// The template Via with a fresh branch.
    mutating func freshVia() -> SIPVia {
        var via = configuration.via
        via.parameters.set("branch", SIPIdentifierGenerator.branch(using: &random))
        return via
    }

    var contactValue: String { SIPNameAddress(uri: configuration.contact).description }

    /// Allow and User-Agent, carried by every request.
    var commonHeaders: [(String, String)] {
        var headers = [("Allow", Self.allowValue)]
        if let userAgent = configuration.userAgent { headers.append(("User-Agent", userAgent)) }
        return headers
    }

    /// The initial INVITE (or its authenticated retry) numbered `sequence`.
    mutating func makeInitialInvite(sequence: UInt32, body: [UInt8], authorization: [SIPAuthorizationHeader]) -> SIPRequest {
        var from = configuration.localIdentity
        from.tag = localTag
        var headers = SIPHeaders()
        headers.add("Via", freshVia().description)
        headers.add("Max-Forwards", "70")
        headers.add("From", from.description)
        headers.add("To", remote.description)
        headers.add("Call-ID", callID)
        headers.add("CSeq", SIPCSeq(sequence: sequence, method: .invite).description)
        headers.add("Contact", contactValue)
        for (name, value) in commonHeaders { headers.add(name, value) }
        // One Supported for every option tag: 100rel (RFC 3262), replaces (RFC 3891), timer (RFC 4028).
        var supported = (configuration.reliableProvisionals ? ["100rel"] : []) + ["replaces"]
        for (name, value) in sessionTimerRequestHeaders(initial: true) {
            if name == "Supported" { supported.append(value) } else { headers.add(name, value) }
        }
        if !supported.isEmpty { headers.add("Supported", supported.joined(separator: ", ")) }
        for header in authorization { headers.add(header.name, header.value) }
        for (name, value) in extraHeaders { headers.add(name, value) }
        if !body.isEmpty { headers.add("Content-Type", Self.sdpContentType) }
        headers.add("Content-Length", String(body.count))
        return SIPRequest(method: .invite, uri: requestURI, headers: headers, body: body)
    }

    /// CANCEL for `invite` (§9.1): its Request-URI, Call-ID, From, To, CSeq number, Route and
    /// top Via (same branch); method CANCEL, no body.
    static func makeCancel(for invite: SIPRequest, userAgent: String?) -> SIPRequest {
        var headers = SIPHeaders()
        if let via = invite.headers["via"].first.flatMap({ try? SIPHeaders.splitList($0).first }) {
            headers.add("Via", via)
        }
        headers.add("Max-Forwards", "70")
        for route in invite.headers["route"] { headers.add("Route", route) }
        for name in ["From", "To", "Call-ID"] {
            if let value = invite.headers.first(name) { headers.add(name, value) }
        }
        let sequence = (try? invite.headers.cseq().sequence) ?? 1
        headers.add("CSeq", SIPCSeq(sequence: sequence, method: .cancel).description)
        if let userAgent { headers.add("User-Agent", userAgent) }
        headers.add("Content-Length", "0")
        return SIPRequest(method: .cancel, uri: invite.uri, headers: headers)
    }

    /// A request in the dialog with the next CSeq, carrying `extraHeaders` after the common
    /// ones; nil without a dialog.
    mutating func makeDialogRequest(
        _ method: SIPMethod, body: [UInt8] = [], contentType: String? = nil, authorization: [SIPAuthorizationHeader]? = nil,
        extraHeaders: SIPHeaders = SIPHeaders()
    ) -> SIPRequest? {
        guard var dialog else { return nil }
        var headers: [(String, String)] = []
        // Target refresh requests carry our Contact (§12.2.1.1, RFC 3311 §5.1).
        // REFER and NOTIFY carry one too (RFC 6665 §4.1.2.1 and §4.2.2; RFC 3515 §2.4.4).
        if method == .refer || method == .notify { headers.append(("Contact", contactValue)) }
        if method == .invite || method == .update {
            headers.append(("Contact", contactValue))
            // Every re-INVITE and UPDATE in a confirmed dialog is a session refresh (RFC 4028 §7.4).
            headers += sessionTimerRequestHeaders(initial: false)
        }
        headers += commonHeaders
        for field in extraHeaders { headers.append((field.name, field.value)) }
        let auth =
            authorization
            ?? authenticator.authorizationHeaders(method: method.rawValue, uri: dialog.requestTarget.uri.description, body: body)
        for header in auth { headers.append((header.name, header.value)) }
        let request = dialog.makeRequest(
            method: method, via: freshVia(), headers: headers, body: body, contentType: contentType)
        self.dialog = dialog
        return request
    }

    /// Sends `request` as `purpose`, remembering it for its response.
    mutating func send(_ request: SIPRequest, as purpose: Purpose) -> SIPInviteSessionAction {
        if let cseq = try? request.headers.cseq() {
            outstanding[RequestKey(sequence: cseq.sequence, method: request.method)] = Outstanding(
                request: request, purpose: purpose)
        }
        return .sendRequest(request)
    }

    /// The ACK for a 2xx to the INVITE numbered `sequence`, carrying the INVITE's credentials.
    mutating func makeACK(forInvite invite: SIPRequest, sequence: UInt32, body: [UInt8] = []) -> SIPRequest? {
        guard let dialog else { return nil }
        var headers: [(String, String)] = []
        for name in ["Authorization", "Proxy-Authorization"] {
            for value in invite.headers[name] { headers.append((name, value)) }
        }
        if let userAgent = configuration.userAgent { headers.append(("User-Agent", userAgent)) }
        let ack = dialog.makeACK(
            forInviteCSeq: sequence, via: freshVia(), headers: headers, body: body,
            contentType: body.isEmpty ? nil : Self.sdpContentType)
        acks[sequence] = ack
        return ack
    }

    /// A response to `request` with our tag; Contact on 1xx/2xx to INVITE, Allow on 2xx to
    /// INVITE and OPTIONS, 405 and 501.
    func makeResponse(
        to request: SIPRequest, statusCode: Int, body: [UInt8] = [], contentType: String? = nil
    )
        -> SIPResponse
    {
        var response = SIPResponse(replyingTo: request, statusCode: statusCode, toTag: localTag)
        if request.method == .invite, statusCode > 100, statusCode < 300 {
            // §12.1.1: a dialog-creating response copies every Record-Route of the request, in order.
            for value in request.headers["record-route"] { response.headers.add("Record-Route", value) }
            response.headers.add("Contact", contactValue)
        }
        if request.method == .update, (200..<300).contains(statusCode) {
            response.headers.add("Contact", contactValue)  // RFC 3311 §5.2: the 2xx to a target refresh
        }
        if (request.method == .invite && (200..<300).contains(statusCode)) || request.method == .options
            || statusCode == 405 || statusCode == 501
        {
            response.headers.add("Allow", Self.allowValue)
        }
        if !body.isEmpty, let contentType {
            response.setBody(body, contentType: contentType)
        } else {
            response.headers.remove("content-length")
            response.headers.add("Content-Length", "0")
        }
        return response
    }

    /// Parses an SDP body; nil for an empty or non-SDP body.
    static func sdpBody(_ headers: SIPHeaders, _ body: [UInt8]) -> Result<SDPSessionDescription, SDPNegotiationError>? {
        guard !body.isEmpty else { return nil }
        if let type = try? headers.contentType(), type.type.lowercased() != "application" || type.subtype.lowercased() != "sdp" {
            return nil
        }
        do throws(SDPParseError) {
            return .success(try SDPSessionDescription(parsing: body))
        } catch {
            return .failure(.answerMismatch("unparsable SDP: \(error)"))
        }
    }
}
