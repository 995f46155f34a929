import NIOCore
import VoiceSupport
import VoiceSIP

/// The time of an event loop as a ``MediaClock``: the loop's `now`, which is the monotonic clock
/// on a real loop and virtual time on an `EmbeddedEventLoop` or `NIOAsyncTestingEventLoop`. A
/// driver whose timers are the loop's scheduled tasks reads this, so that its "now" and its
/// timers agree.
package struct EventLoopMediaClock: MediaClock {
    package let loop: any EventLoop

    package init(loop: any EventLoop) { self.loop = loop }

    package func now() -> MediaTime {
        MediaTime(nanoseconds: Int64(loop.now.uptimeNanoseconds))
    }
}

/// Finds a local RTP port for a new call, completing on the given loop.
package typealias SIPMediaPortSource = @Sendable (any EventLoop) -> EventLoopFuture<UInt16>
