import VoiceMedia
import VoiceSupport

/// The call-message send rate limit: at most ``maximumMessages`` messages in any sliding
/// ``window`` (10 per minute). A pure value; the caller passes the time in.
package struct CallMessageRateLimiter: Sendable, Equatable {
    /// Messages allowed per window.
    package static let maximumMessages = 10
    /// The window (one minute).
    package static let window = MediaTime.seconds(60)

    private var sentAt: [MediaTime] = []

    /// Creates an empty limiter.
    package init() {}

    /// Records a send at `now` (a monotonic clock) and returns true if it is allowed;
    /// returns false, recording nothing, when ``maximumMessages`` were sent in the last
    /// ``window`` (a refused send is reported through `didFailToSendMessage` with 31429
    /// ``VoiceError/Code/tooManyRequests``; see ``rateExceededError``).
    package mutating func admit(at now: MediaTime) -> Bool {
        sentAt.removeAll { now.nanoseconds - $0.nanoseconds >= Self.window.nanoseconds }
        guard sentAt.count < Self.maximumMessages else { return false }
        sentAt.append(now)
        return true
    }

    /// The error for a send refused by the limiter.
    package static var rateExceededError: VoiceError {
        VoiceError(.tooManyRequests, failureReason: "More than \(maximumMessages) call messages within one minute")
    }
}
