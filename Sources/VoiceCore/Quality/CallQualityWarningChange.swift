/// A change of the warning set reported by `CallQualityWarningDetector`: what to pass to
/// `call(_:didReceiveQualityWarnings:previousWarnings:)` and the Insights events to publish.
package struct CallQualityWarningChange: Hashable, Sendable {
    /// The warnings in effect after the sample.
    package var current: Set<CallQualityWarning>
    /// The warnings in effect before the sample.
    package var previous: Set<CallQualityWarning>
    /// One `*-warning-raised` or `*-warning-cleared` event per warning that changed: cleared
    /// ones first, then raised ones, each in `CallQualityWarning/allCases` order.
    package var insightsEvents: [InsightsEvent]

    /// Creates a change.
    package init(current: Set<CallQualityWarning>, previous: Set<CallQualityWarning>, insightsEvents: [InsightsEvent]) {
        self.current = current
        self.previous = previous
        self.insightsEvents = insightsEvents
    }

    /// Warnings that appeared.
    package var raised: Set<CallQualityWarning> { current.subtracting(previous) }
    /// Warnings that went away.
    package var cleared: Set<CallQualityWarning> { previous.subtracting(current) }
}
