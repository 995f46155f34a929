/// How a conference destination (`conference:room`, Sinch's `callConferenceWithId`) is
/// addressed on the SIP server in use. Servers join conferences in their own ways; pick the
/// form yours routes (`VoiceServerSettings.conferenceAddressing` in VoiceService).
///
/// | form | INVITE for room `standup` at `example.com` |
/// |---|---|
/// | ``uriParameter`` (default) | `sip:standup@example.com;conference` (this SDK's callee reads it back as a conference) |
/// | ``userPrefix(_:)`` `"conf-"` | `sip:conf-standup@example.com` (a dialplan keyed on an extension prefix: Asterisk ConfBridge, Kamailio routing) |
/// | ``host(_:)`` `"conference.example.com"` | `sip:standup@conference.example.com` (a conference server of its own, RFC 4579's focus) |
/// | ``focus(user:header:)`` `"conference"`, `"X-Conference-Id"` | `sip:conference@example.com` with `X-Conference-Id: standup` (one bridge number, the room in a header) |
public enum ConferenceAddressing: Sendable, Hashable {
    /// The room as the user part, marked with a `conference` URI parameter.
    case uriParameter
    /// The room behind a fixed prefix in the user part.
    case userPrefix(String)
    /// The room at a conference server's host instead of the domain.
    case host(String)
    /// One conference user, the room in a header (an `X-` header, or any the server reads).
    case focus(user: String, header: String)
}
