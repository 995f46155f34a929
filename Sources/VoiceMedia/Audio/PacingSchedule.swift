import VoiceSupport
/// Decides how many buffers a paced device owes at a given time: a pure value driven by ticks.
///
/// The schedule starts at the first ``buffersDue(at:)`` call (one buffer is due at once), then
/// one buffer every ``bufferDuration`` on an absolute timeline, so rounding never accumulates into
/// drift. If the caller falls more than ``maxCatchUp`` buffers behind (a stalled or suspended
/// process) it delivers `maxCatchUp`, drops the rest of the backlog, and restarts the timeline
/// from `now`; ``droppedBuffers`` counts what was skipped.
package struct PacingSchedule: Hashable, Sendable {
    /// Duration of one buffer.
    package let bufferDuration: MediaTime
    /// Most buffers one call may return.
    package let maxCatchUp: Int
    /// When the next buffer is due; nil before the first call.
    package private(set) var nextDue: MediaTime?
    /// Buffers skipped by resynchronisation after stalls.
    package private(set) var droppedBuffers: Int = 0

    /// Creates a schedule for buffers of `bufferDuration` (must be positive).
    package init(bufferDuration: MediaTime, maxCatchUp: Int = 5) {
        precondition(bufferDuration.nanoseconds > 0, "buffer duration must be positive")
        self.bufferDuration = bufferDuration
        self.maxCatchUp = max(1, maxCatchUp)
    }

    /// Buffers to produce now, advancing the timeline past them.
    package mutating func buffersDue(at now: MediaTime) -> Int {
        guard let due = nextDue else {
            nextDue = now + bufferDuration
            return 1
        }
        guard now >= due else { return 0 }
        let owed = (now - due).nanoseconds / bufferDuration.nanoseconds + 1
        if owed > Int64(maxCatchUp) {
            droppedBuffers += Int(owed) - maxCatchUp
            nextDue = now + bufferDuration
            return maxCatchUp
        }
        nextDue = due + MediaTime(nanoseconds: owed * bufferDuration.nanoseconds)
        return Int(owed)
    }
}
