#if canImport(Glibc)
    import Glibc
#endif
import VoiceSupport

/// RTCP bookkeeping for one stream: report timing, what the peer's last SR said, and what its
/// reports say about us.
struct RTCPState {
    var interval: MediaTime
    var nextReport: MediaTime = .zero
    var byeSent = false
    /// Middle 32 bits of the NTP timestamp of the peer's last SR (our LSR), and when it arrived.
    var lastSRCompact: UInt32 = 0
    var lastSRArrival: MediaTime?
    var rtt: MediaTime?
    var remoteFractionLost: Double = 0
    var remoteJitterUnits: UInt32 = 0
    var remoteCumulativeLost: Int64 = 0
    var reportsReceived = 0
    /// SRs and RRs from the source being played, and the packet count of its last SR: what the
    /// peer says about its own sending, which tells a silent peer from a broken path.
    var peerReports: UInt64 = 0
    var remoteSenderPacketCount: UInt32?
    var sent: UInt64 = 0
    var received: UInt64 = 0
    private var rng = SecureRandomNumberGenerator()
    /// Compact NTP times of the SRs we sent last (a ring), to check the LSR of reports.
    private var recentSenderReports: [UInt32]
    private var nextSenderReportSlot = 0

    init(interval: MediaTime) {
        self.interval = interval
        recentSenderReports = [UInt32](repeating: 0, count: 8)
    }

    /// Remembers an SR we are sending.
    mutating func recordSenderReport(compact: UInt32) {
        recentSenderReports[nextSenderReportSlot] = compact
        nextSenderReportSlot = (nextSenderReportSlot + 1) % recentSenderReports.count
    }

    /// Whether `compact` is the time of one of our last few SRs (0, "no SR", never is).
    func sentSenderReport(compact: UInt32) -> Bool {
        compact != 0 && recentSenderReports.contains(compact)
    }

    /// Schedules the first report sooner than the interval (RFC 3550 §6.2: half the minimum).
    mutating func start(at now: MediaTime) {
        nextReport =
            now + MediaTime(nanoseconds: interval.nanoseconds / 4 + Int64.random(in: 0...max(1, interval.nanoseconds / 4), using: &rng))
    }

    /// Schedules the next report at a random point in 0.5…1.5 × the interval.
    mutating func scheduleNext(after now: MediaTime) {
        let half = interval.nanoseconds / 2
        nextReport = now + MediaTime(nanoseconds: half + Int64.random(in: 0...max(1, interval.nanoseconds), using: &rng))
    }

    /// Wall-clock time as NTP, for SR timestamps and RTT arithmetic.
    static func wallClockNTP() -> NTPTimestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return NTPTimestamp(unixSeconds: Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9)
    }

    /// The wall-clock NTP time of an earlier monotonic instant (e.g. a packet's arrival).
    static func wallClockNTP(at instant: MediaTime) -> NTPTimestamp {
        var mono = timespec()
        clock_gettime(CLOCK_MONOTONIC, &mono)
        let ago = Double(Int64(mono.tv_sec) * 1_000_000_000 + Int64(mono.tv_nsec) - instant.nanoseconds) / 1e9
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return NTPTimestamp(unixSeconds: Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9 - max(0, ago))
    }
}
