/// What a user agent core answers by itself before any dialog or session sees a request
/// (RFC 3261 §8.2, §11, §12.2.2). Pure: it looks at a request and returns a disposition.
///
/// Checks, in order (a request failing one is answered and later checks are skipped):
/// 1. ACK is never answered: one with a To tag and no dialog is dropped, any other passed on.
/// 2. Max-Forwards 0 on anything but OPTIONS → 483 Too Many Hops (an OPTIONS is answered here).
/// 3. A method not in ``Configuration/knownMethods`` → 501 Not Implemented; one known but not in
///    ``Configuration/allowedMethods`` → 405 Method Not Allowed with Allow (§8.2.1).
/// 4. A Request-URI scheme not in ``Configuration/supportedSchemes`` → 416 (§8.2.2.1).
/// 5. A Require option tag not in ``Configuration/supportedExtensions`` → 420 Bad Extension with
///    Unsupported listing them (§8.2.2.3; not for CANCEL). A malformed Require → 400.
/// 6. A To tag with no matching dialog → 481 (§12.2.2).
/// 7. OPTIONS outside a dialog → 200 with Allow, Accept, Supported and an optional SDP (§11.2).
/// Anything else is passed on.
package struct SIPCoreResponder: Sendable {
    /// What this user agent supports.
    package struct Configuration: Sendable, Equatable {
        /// The methods this user agent handles, listed in Allow. Default INVITE, ACK, CANCEL, BYE, OPTIONS.
        package var allowedMethods: [SIPMethod]
        /// Methods it recognises: the allowed ones answer normally, the others 405. Default every
        /// method ``SIPMethod`` names (INVITE, ACK, BYE, CANCEL, REGISTER, OPTIONS, INFO, UPDATE,
        /// PRACK, SUBSCRIBE, NOTIFY, REFER, MESSAGE, PUBLISH).
        package var knownMethods: [SIPMethod]
        /// Request-URI schemes accepted. Default sip and sips.
        package var supportedSchemes: [SIPURI.Scheme]
        /// Option tags supported (RFC 3261 §19.2), listed in Supported. Default none.
        package var supportedExtensions: [String]
        /// Body types accepted, listed in Accept. Default application/sdp.
        package var acceptedContentTypes: [String]
        /// The Server header value of the responses, if any.
        package var serverName: String?

        /// Creates a configuration; parameters default to the values documented on each property.
        package init(
            allowedMethods: [SIPMethod] = [.invite, .ack, .cancel, .bye, .options],
            knownMethods: [SIPMethod] = [
                .invite, .ack, .bye, .cancel, .register, .options, .info, .update, .prack, .subscribe, .notify,
                .refer, .message, .publish,
            ],
            supportedSchemes: [SIPURI.Scheme] = [.sip, .sips], supportedExtensions: [String] = [],
            acceptedContentTypes: [String] = ["application/sdp"], serverName: String? = nil
        ) {
            self.allowedMethods = allowedMethods
            self.knownMethods = knownMethods
            self.supportedSchemes = supportedSchemes
            self.supportedExtensions = supportedExtensions
            self.acceptedContentTypes = acceptedContentTypes
            self.serverName = serverName
        }
    }

    /// What this user agent supports.
    package var configuration: Configuration

    /// Creates a responder.
    package init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// Decides what the core does with a well-formed request.
    ///
    /// - Parameters:
    ///   - request: the received request (its top Via already stamped).
    ///   - dialogExists: whether the dialog layer has a dialog matching the request's Call-ID
    ///     and tags; only consulted for requests with a To tag.
    ///   - toTag: the tag put in the To of a response when the request's To has none.
    ///   - sdp: an SDP of our capabilities for an OPTIONS answer, or nil for none.
    package func answer(_ request: SIPRequest, dialogExists: Bool, toTag: String, sdp: [UInt8]? = nil) -> SIPCoreDisposition {
        let hasToTag = (try? request.headers.to())?.tag != nil
        if request.method == .ack {
            return hasToTag && !dialogExists ? .drop : .passOn
        }
        func reply(_ code: Int, _ extra: [(String, String)] = [], body: [UInt8] = []) -> SIPCoreDisposition {
            .respond(response(to: request, statusCode: code, toTag: toTag, extra: extra, body: body))
        }

        if request.method != .options, (try? request.headers.maxForwards()) == 0 { return reply(483) }
        guard configuration.knownMethods.contains(request.method) else { return reply(501) }
        guard configuration.allowedMethods.contains(request.method) else { return reply(405, [("Allow", allowValue)]) }
        guard configuration.supportedSchemes.contains(request.uri.scheme) else { return reply(416) }
        if request.method != .cancel {
            guard let required = try? request.headers.values("require") else { return reply(400) }
            let unsupported = required.filter { !configuration.supportedExtensions.contains($0) }
            if !unsupported.isEmpty { return reply(420, [("Unsupported", unsupported.joined(separator: ", "))]) }
        }
        if hasToTag {
            return dialogExists ? .passOn : reply(481)
        }
        if request.method == .options {
            return reply(
                200,
                [
                    ("Allow", allowValue), ("Accept", configuration.acceptedContentTypes.joined(separator: ", ")),
                    ("Supported", configuration.supportedExtensions.joined(separator: ", ")),
                ], body: sdp ?? [])
        }
        return .passOn
    }

    /// The Allow header value: the allowed methods, comma-separated.
    package var allowValue: String { configuration.allowedMethods.map(\.rawValue).joined(separator: ", ") }

    /// A response to `request` (RFC 3261 §8.2.6), `extra` fields after the copied ones.
    func response(
        to request: SIPRequest, statusCode: Int, reasonPhrase: String? = nil, toTag: String?,
        extra: [(String, String)] = [], body: [UInt8] = []
    ) -> SIPResponse {
        var response = SIPResponse(replyingTo: request, statusCode: statusCode, reasonPhrase: reasonPhrase, toTag: toTag)
        response.headers.remove("content-length")
        for (name, value) in extra { response.headers.add(name, value) }
        if let serverName = configuration.serverName { response.headers.add("Server", serverName) }
        response.setBody(body, contentType: "application/sdp")
        return response
    }
}
