/// What the user agent core decides about a received request before any dialog or session sees it.
package enum SIPCoreDisposition: Equatable, Sendable {
    /// Nothing for the core to do: hand the request to the dialog / session layer.
    case passOn
    /// Answer with this response (through the server transaction) and stop.
    case respond(SIPResponse)
    /// Drop the request silently (an ACK matching no dialog).
    case drop
}
