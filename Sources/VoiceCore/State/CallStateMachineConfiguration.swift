import VoiceSupport
/// The thresholds of a ``CallStateMachine``'s reconnection logic.
package struct CallStateMachineConfiguration: Sendable, Hashable {
    /// How long the peer's media may be silent while connected before the call starts
    /// reconnecting with 53405. Default 3 s.
    package let mediaSilenceThreshold: MediaTime
    /// How long a media reconnection may last before the call ends with 53405. Default 30 s.
    package let mediaReconnectTimeout: MediaTime
    /// How long a signaling reconnection may last before the call ends with 53001. Default 30 s.
    package let signalingReconnectTimeout: MediaTime
    /// How long an outgoing call may go unanswered, from its INVITE, before it is cancelled
    /// (no answer); nil: as long as the callee's side lets it ring. Set per client.
    package var ringTimeout: MediaTime?

    /// Creates a configuration; durations below 1 ms are raised to 1 ms.
    package init(
        mediaSilenceThreshold: MediaTime = .milliseconds(3_000),
        mediaReconnectTimeout: MediaTime = .milliseconds(30_000),
        signalingReconnectTimeout: MediaTime = .milliseconds(30_000)
    ) {
        let floor = MediaTime.milliseconds(1)
        self.mediaSilenceThreshold = max(mediaSilenceThreshold, floor)
        self.mediaReconnectTimeout = max(mediaReconnectTimeout, floor)
        self.signalingReconnectTimeout = max(signalingReconnectTimeout, floor)
    }
}
