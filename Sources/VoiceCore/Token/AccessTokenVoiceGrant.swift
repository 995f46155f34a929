/// The `voice` grant of an access token (`grants.voice`), as Twilio's token helpers write it:
/// `{"incoming": {"allow": true}, "outgoing": {"application_sid": "AP…", "params": {…}},
/// "push_credential_sid": "CR…"}`. Every member is optional; unknown members are ignored.
package struct AccessTokenVoiceGrant: Sendable, Equatable {
    /// Whether the identity may receive calls (`incoming.allow`); nil when not stated.
    package var incomingAllowed: Bool?
    /// The application that handles outgoing calls (`outgoing.application_sid`).
    package var outgoingApplicationSid: String?
    /// Parameters passed to the outgoing application (`outgoing.params`).
    package var outgoingApplicationParams: [String: String]
    /// The push credential for incoming-call notifications (`push_credential_sid`).
    package var pushCredentialSid: String?

    /// Creates a grant.
    package init(
        incomingAllowed: Bool? = nil, outgoingApplicationSid: String? = nil,
        outgoingApplicationParams: [String: String] = [:], pushCredentialSid: String? = nil
    ) {
        self.incomingAllowed = incomingAllowed
        self.outgoingApplicationSid = outgoingApplicationSid
        self.outgoingApplicationParams = outgoingApplicationParams
        self.pushCredentialSid = pushCredentialSid
    }
}
