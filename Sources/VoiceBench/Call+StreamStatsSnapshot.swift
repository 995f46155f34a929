import Dispatch
import VoiceCore
import VoiceRTP
import VoiceSupport

extension Call {
    /// The streams' figures of `calls` now, in their order (nil for a call without media, or
    /// whose figures did not come within `timeout` seconds).
    static func streamStatistics(_ calls: [Call], timeout: Double = 5) -> [AudioStreamStats?] {
        let results = Locked<[AudioStreamStats?]>(Array(repeating: nil, count: calls.count))
        let group = DispatchGroup()
        for (index, call) in calls.enumerated() {
            group.enter()
            call.streamStats { stats in
                results.withLock { $0[index] = stats }
                group.leave()
            }
        }
        _ = group.wait(timeout: .now() + timeout)
        return results.withLock { $0 }
    }
}
