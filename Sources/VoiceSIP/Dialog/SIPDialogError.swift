/// Why a dialog could not be created or an in-dialog request was refused (RFC 3261 §12).
package struct SIPDialogError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case malformedMessage
        case missingTag
        case missingContact
        case outOfOrder
        case wrongDialog
    }

    private let kind: Kind
    /// Details for logs.
    package let detail: String

    private init(_ kind: Kind, _ detail: String = "") {
        self.kind = kind
        self.detail = detail
    }

    /// A header the dialog needs (Call-ID, From, To, CSeq, Contact, Record-Route) is missing or malformed.
    package static let malformedMessage = SIPDialogError(.malformedMessage)
    /// The response that would create the dialog carries no To tag.
    package static let missingTag = SIPDialogError(.missingTag)
    /// The dialog-creating request or 2xx has no usable Contact (§12.1.1: 400 Bad Request).
    package static let missingContact = SIPDialogError(.missingContact)
    /// The request's CSeq is lower than the last one received (§12.2.2: 500).
    package static let outOfOrder = SIPDialogError(.outOfOrder)
    /// The message's Call-ID or tags belong to another dialog (481).
    package static let wrongDialog = SIPDialogError(.wrongDialog)

    /// The same error with `detail` attached.
    package func with(_ detail: String) -> SIPDialogError { SIPDialogError(kind, detail) }

    /// The status a UAS answers a request refused for this reason with.
    package var statusCode: Int {
        switch kind {
        case .malformedMessage, .missingTag, .missingContact: 400
        case .outOfOrder: 500
        case .wrongDialog: 481
        }
    }

    package static func == (lhs: SIPDialogError, rhs: SIPDialogError) -> Bool { lhs.kind == rhs.kind }
    package func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    package var description: String {
        let name: String
        switch kind {
        case .malformedMessage: name = "malformed dialog message"
        case .missingTag: name = "response without a To tag"
        case .missingContact: name = "no Contact for the remote target"
        case .outOfOrder: name = "CSeq lower than the last received"
        case .wrongDialog: name = "message of another dialog"
        }
        return detail.isEmpty ? "SIP dialog: \(name)" : "SIP dialog: \(name): \(detail)"
    }
}
