/// Why an ``SIPInviteSession`` refused a local request.
package struct SIPInviteSessionError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case notConfirmed
        case bodyTooLarge
        case unsupportedContentType
        case malformedBody
        case invalidHeader
        case transferInProgress
    }

    private let kind: Kind
    /// Details for logs.
    package let detail: String

    private init(_ kind: Kind, _ detail: String = "") {
        self.kind = kind
        self.detail = detail
    }

    /// The call is not confirmed (or already ending), nor, for INFO from the callee, ringing in
    /// an early dialog.
    package static let notConfirmed = SIPInviteSessionError(.notConfirmed)
    /// The body is larger than the content type allows (application/json: 10 240 bytes).
    package static let bodyTooLarge = SIPInviteSessionError(.bodyTooLarge)
    /// The content type is not one the session sends in INFO.
    package static let unsupportedContentType = SIPInviteSessionError(.unsupportedContentType)
    /// The body does not follow its content type's syntax.
    package static let malformedBody = SIPInviteSessionError(.malformedBody)
    /// An extra header field has a name that is not a token or that the session sets itself,
    /// or a value with control characters.
    package static let invalidHeader = SIPInviteSessionError(.invalidHeader)
    /// A transfer (REFER) is already in progress in this call, either way.
    package static let transferInProgress = SIPInviteSessionError(.transferInProgress)

    /// The same error with `detail` attached.
    package func with(_ detail: String) -> SIPInviteSessionError { SIPInviteSessionError(kind, detail) }

    package static func == (lhs: SIPInviteSessionError, rhs: SIPInviteSessionError) -> Bool { lhs.kind == rhs.kind }
    package func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    package var description: String {
        let name: String
        switch kind {
        case .notConfirmed: name = "the call is not confirmed"
        case .bodyTooLarge: name = "body too large"
        case .unsupportedContentType: name = "unsupported content type"
        case .malformedBody: name = "malformed body"
        case .invalidHeader: name = "invalid header field"
        case .transferInProgress: name = "a transfer is already in progress"
        }
        return detail.isEmpty ? "INVITE session: \(name)" : "INVITE session: \(name): \(detail)"
    }
}
