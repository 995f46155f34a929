import VoiceSupport
/// One thing a ``CallStateMachine`` asks its driver to do, in the order returned.
package enum CallStateOutput: Sendable, Hashable {
    /// Deliver a delegate callback on the delegate queue.
    case callback(CallStateCallback)
    /// Publish a `connection` Insights event.
    case insights(CallStateInsightsEvent)
    /// Perform signaling or media work.
    case action(CallStateAction)
    /// Start (or restart) a timer that expires at `deadline`.
    case startTimer(CallStateTimer, deadline: MediaTime)
    /// Stop a running timer.
    case cancelTimer(CallStateTimer)
}
