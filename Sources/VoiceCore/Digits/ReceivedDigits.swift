import Foundation
import VoiceSupport

/// The digits a call received, once per key press: a pure value fed each digit as it arrives
/// (an RFC 4733 event from the media, an INFO from the signaling) with the call's clock.
///
/// A peer may send one press both ways. Each digit that was reported waits, for
/// ``pairingWindow``, for its twin from the other transport: a digit that matches the oldest
/// one waiting from the other transport is that press again and is not reported. Digits from
/// the same transport are never merged (a key pressed twice is two presses), so a peer that
/// uses one transport is reported exactly as it sends.
struct ReceivedDigits: Sendable {
    /// How long a reported digit waits for its twin. A peer that sends INFO at the key press
    /// and the RTP event's end when the key is released has its two a key's duration apart.
    static let pairingWindow = MediaTime.seconds(2)
    /// Reported digits waiting for a twin, at most this many (the oldest gives way).
    static let maximumWaiting = 32

    private var waiting: [(digit: Character, transport: CallDigit.Transport, at: MediaTime)] = []
    /// Digits not reported because they were a press already reported the other way.
    private(set) var twinsDropped = 0

    /// A digit arrived: the digit to report, or nil when it is a press already reported.
    mutating func receive(_ digit: Character, duration: TimeInterval, via transport: CallDigit.Transport, at now: MediaTime) -> CallDigit? {
        waiting.removeAll { now - $0.at > Self.pairingWindow }
        if let twin = waiting.firstIndex(where: { $0.transport != transport }), waiting[twin].digit == digit {
            waiting.remove(at: twin)
            twinsDropped += 1
            return nil
        }
        if waiting.count >= Self.maximumWaiting { waiting.removeFirst() }
        waiting.append((digit, transport, now))
        return CallDigit(digit: digit, duration: duration, transport: transport)
    }
}
