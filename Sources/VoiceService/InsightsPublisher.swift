/// Receives every Insights event of the calls it is configured for, one ``InsightsRecord`` at a
/// time, as a swift-log handler receives one message.
///
/// `publish(_:)` is called synchronously from the SDK's internal queues, in event order for each
/// call. It must return quickly and must not call back into the SDK; hand work off to your own
/// queue if it can block (network upload, disk).
public protocol InsightsPublisher: Sendable {
    /// Handles one event.
    func publish(_ record: InsightsRecord)
}
