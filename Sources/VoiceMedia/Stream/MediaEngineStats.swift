import VoiceSupport

/// Figures about the engine's real-time behaviour.
package struct MediaEngineStats: Sendable, Hashable {
    /// Ticks whose work ended after the next tick was due, summed over workers.
    package var overruns: Int
    /// The longest time one tick's work took, in microseconds.
    package var maxTickMicroseconds: Int
    /// Ticks run, summed over workers.
    package var ticks: Int
    /// Tasks (stream endpoints) attached.
    package var tasks: Int
    /// Datagrams read from the streams' sockets, summed over workers.
    package var datagramsRead: Int = 0
    /// Ticks whose read budget ran out with datagrams still queued: a flood the engine could
    /// not read in full (the kernel dropped the rest).
    package var readBudgetExhausted: Int = 0

    package init(overruns: Int = 0, maxTickMicroseconds: Int = 0, ticks: Int = 0, tasks: Int = 0, datagramsRead: Int = 0) {
        self.overruns = overruns
        self.maxTickMicroseconds = maxTickMicroseconds
        self.ticks = ticks
        self.tasks = tasks
        self.datagramsRead = datagramsRead
    }
}

