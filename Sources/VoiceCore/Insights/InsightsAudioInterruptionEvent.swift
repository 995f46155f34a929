/// Event names of the `audio-interruption` group.
package enum InsightsAudioInterruptionEvent: String, Hashable, Sendable, CaseIterable {
    /// The call's audio device failed or could not open; the call's audio is off while it is reopened.
    case began
    /// The device runs again and the call's audio is back.
    case ended
}
