/// Whether a participant is talking, from one level per 10 ms frame (measured from its audio, or
/// read from an RFC 6464 audio-level header extension), with hysteresis so that a talker's
/// pauses between words do not flap the state: talking after ``onsetFrames`` frames at or
/// above ``talkingLevel``; silent again after ``hangoverFrames`` frames below ``silentLevel``.
package struct TalkDetector: Hashable, Sendable {
    /// Level (dBFS) at or above which a frame counts as speech.
    package var talkingLevel: Double = -40
    /// Level (dBFS) below which a frame counts as silence.
    package var silentLevel: Double = -45
    /// Consecutive speech frames before the state turns to talking (30 ms).
    package var onsetFrames = 3
    /// Consecutive silent frames before the state turns to silent (600 ms).
    package var hangoverFrames = 60

    package private(set) var isTalking = false
    private var speechRun = 0
    private var silenceRun = 0

    package init() {}

    /// Feeds one frame's level; returns the new state when it changed.
    package mutating func update(levelDBFS level: Double) -> Bool? {
        if level >= talkingLevel {
            speechRun += 1
            silenceRun = 0
        } else if level < silentLevel {
            silenceRun += 1
            speechRun = 0
        } else {
            speechRun = 0
            silenceRun = 0
        }
        if !isTalking, speechRun >= onsetFrames {
            isTalking = true
            return true
        }
        if isTalking, silenceRun >= hangoverFrames {
            isTalking = false
            return false
        }
        return nil
    }
}
