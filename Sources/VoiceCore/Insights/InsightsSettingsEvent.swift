/// Event names of the `settings` group.
package enum InsightsSettingsEvent: String, Hashable, Sendable, CaseIterable {
    /// The negotiated codec is known and the remote SDP applied.
    case codec
}
