import VoiceEmbedded
import Dispatch
import Foundation
import Synchronization
import VoiceSupport

/// Ctrl-C (SIGINT) and SIGTERM as a flag the commands poll, so that an interrupted command
/// still hangs its calls up (BYE) and unregisters before it exits.
final class Interrupt: @unchecked Sendable {
    // @unchecked: `sources` is set once in init and only kept alive; the flag is atomic.
    private let flag = Flag()
    private let sources: [DispatchSourceSignal]

    private final class Flag: Sendable {
        let requested = Atomic<Bool>(false)
    }

    init() {
        let flag = self.flag
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)  // Delivered to the dispatch source instead.
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { flag.requested.store(true, ordering: .releasing) }
            source.resume()
            return source
        }
    }

    /// True once a signal arrived.
    var isRequested: Bool { flag.requested.load(ordering: .acquiring) }

    /// Waits up to `seconds` (forever when nil) or until `done` returns true; returns true when
    /// interrupted.
    func wait(seconds: TimeInterval?, until done: () -> Bool = { false }) -> Bool {
        _ = PollingWait.until(timeout: seconds ?? .greatestFiniteMagnitude, every: 0.1) { isRequested || done() }
        return isRequested
    }
}
