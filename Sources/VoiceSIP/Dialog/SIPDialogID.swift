/// The identifier of a dialog (RFC 3261 §12): Call-ID, local tag and remote tag, each as seen
/// from this user agent.
public struct SIPDialogID: Hashable, Sendable, CustomStringConvertible {
    /// The Call-ID shared by every request of the dialog.
    public var callID: String
    /// Our tag: the From tag of requests we send.
    public var localTag: String
    /// The peer's tag: the To tag of requests we send.
    public var remoteTag: String

    /// Creates a dialog identifier.
    public init(callID: String, localTag: String, remoteTag: String) {
        self.callID = callID
        self.localTag = localTag
        self.remoteTag = remoteTag
    }

    public var description: String { "\(callID);local=\(localTag);remote=\(remoteTag)" }
}
