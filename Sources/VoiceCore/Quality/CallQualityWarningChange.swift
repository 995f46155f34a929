/// A change of the warning set reported by `CallQualityWarningDetector`: what to pass to
/// `call(_:didReceiveQualityWarnings:previousWarnings:)` and the Insights events to publish.
public struct CallQualityWarningChange: Hashable, Sendable {
    /// The warnings in effect after the sample.
    public var current: Set<CallQualityWarning>
    /// The warnings in effect before the sample.
    public var previous: Set<CallQualityWarning>
    /// One `*-warning-raised` or `*-warning-cleared` event per warning that changed: cleared
    /// ones first, then raised ones, each in `CallQualityWarning/allCases` order.
    public var insightsEvents: [InsightsEvent]

    /// Creates a change.
    public init(current: Set<CallQualityWarning>, previous: Set<CallQualityWarning>, insightsEvents: [InsightsEvent]) {
        self.current = current
        self.previous = previous
        self.insightsEvents = insightsEvents
    }

    /// Warnings that appeared.
    public var raised: Set<CallQualityWarning> { current.subtracting(previous) }
    /// Warnings that went away.
    public var cleared: Set<CallQualityWarning> { previous.subtracting(current) }
}
