/// A call-invite notification payload (`[String: String]`, as passed to
/// `VoiceClient.handleNotification`), read into its parts.
///
/// Keys (Twilio's): `twi_message_type` (`twilio.voice.call` or `twilio.voice.cancel`),
/// `twi_call_sid`, `twi_from`, `twi_to`, and `twi_params` (see `CallInviteCustomParameters`).
package struct CallInviteNotification: Sendable, Equatable {
    /// What the notification announces.
    package enum Kind: String, Sendable, Equatable {
        /// An incoming call (`twilio.voice.call`).
        case call = "twilio.voice.call"
        /// The caller cancelled a call announced earlier (`twilio.voice.cancel`).
        case cancel = "twilio.voice.cancel"
    }

    /// The kind of notification.
    package let kind: Kind
    /// The call's SID.
    package let callSid: CallSid
    /// The caller, if the payload says.
    package let from: String?
    /// The callee.
    package let to: String
    /// The custom parameters from `twi_params`.
    package let customParameters: [String: String]

    /// Reads a payload; nil when it is not a voice notification (no or unknown
    /// `twi_message_type`), so that `handleNotification` can return false for it.
    ///
    /// Throws 31100 ``VoiceError/Code/malformedRequest`` for a voice notification with a
    /// missing or invalid `twi_call_sid`, or malformed `twi_params`.
    package init?(payload: [String: String]) throws(VoiceError) {
        guard let type = payload["twi_message_type"], let kind = Kind(rawValue: type) else { return nil }
        guard let sidText = payload["twi_call_sid"], let sid = CallSid(sidText) else {
            throw VoiceError(.malformedRequest, failureReason: "The notification has no valid twi_call_sid")
        }
        self.kind = kind
        callSid = sid
        from = payload["twi_from"]
        to = payload["twi_to"] ?? ""
        customParameters = try CallInviteCustomParameters.parse(payload: payload)
    }
}
