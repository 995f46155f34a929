/// The identifier of a dialog (RFC 3261 §12): Call-ID, local tag and remote tag, each as seen
/// from this user agent.
package struct SIPDialogID: Hashable, Sendable, CustomStringConvertible {
    /// The Call-ID shared by every request of the dialog.
    package var callID: String
    /// Our tag: the From tag of requests we send.
    package var localTag: String
    /// The peer's tag: the To tag of requests we send.
    package var remoteTag: String

    /// Creates a dialog identifier.
    package init(callID: String, localTag: String, remoteTag: String) {
        self.callID = callID
        self.localTag = localTag
        self.remoteTag = remoteTag
    }

    /// The identifier of the dialog a received request belongs to, from our side: its To tag
    /// is ours, its From tag the peer's. Nil when a tag or the Call-ID is missing or malformed
    /// (an out-of-dialog request, or a CANCEL, which the driver matches by transaction).
    package init?(receivedRequest request: SIPRequest) {
        guard let callID = try? request.headers.callID(), let local = try? request.headers.to().tag,
            let remote = try? request.headers.from().tag
        else { return nil }
        self.init(callID: callID, localTag: local, remoteTag: remote)
    }

    /// The identifier of the dialog a response to our request belongs to: its From tag is
    /// ours, its To tag the peer's. Nil without a To tag (e.g. 100 Trying).
    package init?(receivedResponse response: SIPResponse) {
        guard let callID = try? response.headers.callID(), let local = try? response.headers.from().tag,
            let remote = try? response.headers.to().tag
        else { return nil }
        self.init(callID: callID, localTag: local, remoteTag: remote)
    }

    package var description: String { "\(callID);local=\(localTag);remote=\(remoteTag)" }
}
