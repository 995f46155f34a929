/// A SIP dialog (RFC 3261 §12): the peer-to-peer state two user agents share for the length of a
/// call, as a pure value. Built from the INVITE that creates it, it makes the requests sent inside
/// it (§12.2.1) and checks the requests received (§12.2.2). Not thread-safe; owned by one session.
package struct SIPDialog: Sendable {
    /// Whether a final response confirmed the dialog.
    package enum State: Hashable, Sendable {
        /// Created by a tagged provisional response.
        case early
        /// Created or confirmed by a 2xx.
        case confirmed
    }

    /// Call-ID, local tag and remote tag.
    package private(set) var id: SIPDialogID
    /// Early or confirmed.
    package private(set) var state: State
    /// The CSeq number of the last request we sent in the dialog; nil until we send one (UAS).
    package private(set) var localSequence: UInt32?
    /// The CSeq number of the last request the peer sent; nil until one arrives (UAC).
    package private(set) var remoteSequence: UInt32?
    /// Our address with our tag: From of the requests we send.
    package private(set) var localAddress: SIPNameAddress
    /// The peer's address with its tag: To of the requests we send.
    package private(set) var remoteAddress: SIPNameAddress
    /// Where requests go: the peer's Contact, refreshed by target-refresh requests and responses.
    package private(set) var remoteTarget: SIPURI
    /// The Route set, in the order our requests list it.
    package private(set) var routeSet: [SIPNameAddress]
    /// True when the dialog was set up over TLS with a SIPS Request-URI (§12.1.1).
    package private(set) var isSecure: Bool

    /// The Call-ID.
    package var callID: String { id.callID }

    /// Creates the UAC side from the request we sent and a tagged 1xx or a 2xx answering it
    /// (§12.1.2): route set from Record-Route reversed, remote target from Contact.
    /// - Throws: ``SIPDialogError`` when the response has no To tag or its headers are malformed.
    package init(request: SIPRequest, response: SIPResponse) throws(SIPDialogError) {
        let parsed: (callID: String, from: SIPNameAddress, to: SIPNameAddress, cseq: SIPCSeq, routes: [SIPNameAddress], contact: SIPURI?)
        do throws(SIPParseError) {
            parsed = (
                try request.headers.callID(), try request.headers.from(), try response.headers.to(),
                try request.headers.cseq(), try response.headers.recordRoute(), try Self.contactURI(response.headers)
            )
        } catch {
            throw SIPDialogError.malformedMessage.with(error.description)
        }
        guard let localTag = parsed.from.tag else { throw SIPDialogError.malformedMessage.with("our From has no tag") }
        guard let remoteTag = parsed.to.tag, !remoteTag.isEmpty else { throw SIPDialogError.missingTag }
        self.id = SIPDialogID(callID: parsed.callID, localTag: localTag, remoteTag: remoteTag)
        self.state = response.statusCode >= 200 ? .confirmed : .early
        self.localSequence = parsed.cseq.sequence
        self.remoteSequence = nil
        self.localAddress = parsed.from
        self.remoteAddress = parsed.to
        self.routeSet = parsed.routes.reversed()
        self.remoteTarget = parsed.contact ?? request.uri
        self.isSecure = request.uri.scheme == .sips
    }

    /// Creates the UAS side from a received dialog-creating request (§12.1.1): route set from
    /// Record-Route in order, remote target from Contact, our tag added to To. The dialog is early
    /// until ``confirm()``.
    /// - Parameters:
    ///   - request: The INVITE.
    ///   - localTag: The tag we put in To of our responses.
    ///   - secureTransport: Whether it arrived over TLS (with a SIPS Request-URI the dialog is secure).
    /// - Throws: ``SIPDialogError/missingContact`` or ``SIPDialogError/malformedMessage`` (answer 400).
    package init(request: SIPRequest, localTag: String, secureTransport: Bool = false) throws(SIPDialogError) {
        let parsed: (callID: String, from: SIPNameAddress, to: SIPNameAddress, cseq: SIPCSeq, routes: [SIPNameAddress], contact: SIPURI?)
        do throws(SIPParseError) {
            parsed = (
                try request.headers.callID(), try request.headers.from(), try request.headers.to(),
                try request.headers.cseq(), try request.headers.recordRoute(), try Self.contactURI(request.headers)
            )
        } catch {
            throw SIPDialogError.malformedMessage.with(error.description)
        }
        guard let remoteTag = parsed.from.tag, !remoteTag.isEmpty else {
            throw SIPDialogError.malformedMessage.with("From has no tag")
        }
        guard let contact = parsed.contact else { throw SIPDialogError.missingContact }
        var to = parsed.to
        to.tag = localTag
        self.id = SIPDialogID(callID: parsed.callID, localTag: localTag, remoteTag: remoteTag)
        self.state = .early
        self.localSequence = nil
        self.remoteSequence = parsed.cseq.sequence
        self.localAddress = to
        self.remoteAddress = parsed.from
        self.routeSet = parsed.routes
        self.remoteTarget = contact
        self.isSecure = secureTransport && request.uri.scheme == .sips
    }

    // MARK: Requests we send

    /// The CSeq number the next request will carry.
    package var nextLocalSequence: UInt32 { (localSequence ?? 0) &+ 1 }

    /// Builds a request inside the dialog (§12.2.1.1) with the next local CSeq number: From,
    /// To, Call-ID from the dialog, Request-URI and Route from the remote target and route set
    /// (loose routing, or the strict-routing rewrite when the first route lacks `lr`).
    /// - Parameters:
    ///   - method: Any method but ACK and CANCEL (see ``makeACK(forInviteCSeq:via:headers:body:contentType:)``).
    ///   - via: The top Via, with its branch.
    ///   - headers: Added after CSeq in order (Contact, Allow, User-Agent, ...).
    ///   - body: The body; Content-Type is added when it is not empty.
    ///   - contentType: The body's media type.
    ///   - maxForwards: Max-Forwards, 70 by default.
    package mutating func makeRequest(
        method: SIPMethod, via: SIPVia, headers: [(String, String)] = [], body: [UInt8] = [],
        contentType: String? = nil, maxForwards: Int = 70
    ) -> SIPRequest {
        let sequence = nextLocalSequence
        localSequence = sequence
        return build(
            method: method, cseq: SIPCSeq(sequence: sequence, method: method), via: via, headers: headers,
            body: body, contentType: contentType, maxForwards: maxForwards)
    }

    /// Builds the ACK for a 2xx to the INVITE numbered `inviteCSeq` (§13.2.2.4): the same CSeq
    /// number with method ACK, a new branch in `via`, the dialog's Request-URI and Route. The
    /// local sequence is unchanged.
    package func makeACK(
        forInviteCSeq inviteCSeq: UInt32, via: SIPVia, headers: [(String, String)] = [], body: [UInt8] = [],
        contentType: String? = nil
    ) -> SIPRequest {
        build(
            method: .ack, cseq: SIPCSeq(sequence: inviteCSeq, method: .ack), via: via, headers: headers,
            body: body, contentType: contentType, maxForwards: 70)
    }

    /// The Request-URI and Route values for a request in the dialog (§12.2.1.1).
    package var requestTarget: (uri: SIPURI, route: [SIPNameAddress]) {
        guard let first = routeSet.first else { return (remoteTarget, []) }
        if first.uri.isLooseRouting { return (remoteTarget, routeSet) }
        // Strict routing: the first route becomes the Request-URI (stripped of the parameters a
        // Request-URI may not hold), the remote target goes last in Route.
        var uri = first.uri
        uri.headers = []
        uri.parameters.remove("method")
        var route = Array(routeSet.dropFirst())
        route.append(SIPNameAddress(uri: remoteTarget))
        return (uri, route)
    }

    private func build(
        method: SIPMethod, cseq: SIPCSeq, via: SIPVia, headers extra: [(String, String)], body: [UInt8],
        contentType: String?, maxForwards: Int
    ) -> SIPRequest {
        let target = requestTarget
        var headers = SIPHeaders()
        headers.add("Via", via.description)
        headers.add("Max-Forwards", String(maxForwards))
        for route in target.route { headers.add("Route", route.description) }
        headers.add("From", localAddress.description)
        headers.add("To", remoteAddress.description)
        headers.add("Call-ID", id.callID)
        headers.add("CSeq", cseq.description)
        for (name, value) in extra { headers.add(name, value) }
        if !body.isEmpty, let contentType { headers.add("Content-Type", contentType) }
        headers.add("Content-Length", String(body.count))
        return SIPRequest(method: method, uri: target.uri, headers: headers, body: body)
    }

    // MARK: Messages we receive

    /// Checks a request received in the dialog and records it (§12.2.2): a CSeq lower than the
    /// last one is refused; an INVITE (target refresh) with a Contact replaces the remote target.
    /// ACK and CANCEL reuse their INVITE's number and are not checked.
    /// - Throws: ``SIPDialogError/outOfOrder`` (answer 500), ``SIPDialogError/wrongDialog`` (481),
    ///   ``SIPDialogError/malformedMessage`` (400).
    package mutating func receiveRequest(_ request: SIPRequest) throws(SIPDialogError) {
        let parsed: (cseq: SIPCSeq, callID: String, from: SIPNameAddress, to: SIPNameAddress)
        do throws(SIPParseError) {
            parsed = (try request.headers.cseq(), try request.headers.callID(), try request.headers.from(), try request.headers.to())
        } catch {
            throw SIPDialogError.malformedMessage.with(error.description)
        }
        guard parsed.callID == id.callID, parsed.from.tag == id.remoteTag,
            parsed.to.tag == id.localTag || (request.method == .cancel && parsed.to.tag == nil)
        else {
            throw SIPDialogError.wrongDialog
        }
        let cseq = parsed.cseq
        guard request.method != .ack, request.method != .cancel else { return }
        if let remoteSequence, cseq.sequence < remoteSequence {
            throw SIPDialogError.outOfOrder.with("\(cseq.sequence) after \(remoteSequence)")
        }
        remoteSequence = cseq.sequence
        if request.method == .invite || request.method == .update, let contact = try? Self.contactURI(request.headers) {
            remoteTarget = contact
        }
    }

    /// Marks the dialog confirmed: the UAS calls this when it sends its 2xx to the INVITE.
    package mutating func confirm() { state = .confirmed }

    /// Applies a response to a request we sent in the dialog: a 2xx confirms an early dialog
    /// (recomputing the route set from its Record-Route, §13.2.2.4), and a 2xx to a target
    /// refresh (INVITE, UPDATE) with a Contact replaces the remote target.
    package mutating func receiveResponse(_ response: SIPResponse, method: SIPMethod) {
        guard (200..<300).contains(response.statusCode) else { return }
        if state == .early, method == .invite {
            state = .confirmed
            if let routes = try? response.headers.recordRoute() { routeSet = routes.reversed() }
        }
        if method == .invite || method == .update, let contact = try? Self.contactURI(response.headers) {
            remoteTarget = contact
        }
    }

    /// The URI of the first Contact, nil when absent; throws when malformed or `*`.
    private static func contactURI(_ headers: SIPHeaders) throws(SIPParseError) -> SIPURI? {
        switch try headers.contact() {
        case nil: return nil
        case .wildcard: throw SIPParseError(.invalidHeaderValue, "Contact * in a dialog")
        case .addresses(let list): return list.first?.uri
        }
    }
}
