import Foundation
import Logging
import VoiceSupport

/// Prints each log line with the monotonic time in milliseconds (VOICE_BENCH_TRACE=1).
struct TimedLogHandler: LogHandler {
    static let clock = MonotonicMediaClock()
    let label: String
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        let ms = Double(Self.clock.now().nanoseconds) / 1e6
        print(String(format: "%.3f", ms) + " [\(label)] \(event.message)")
    }
}
