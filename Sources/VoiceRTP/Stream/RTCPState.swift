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
    /// The peer's last RFC 3611 VoIP Metrics block about our stream.
    var remoteVoIPMetrics: RTCPVoIPMetrics?
    var reportsReceived = 0
    /// SRs and RRs from the source being played, and the packet count of its last SR: what the
    /// peer says about its own sending, which tells a silent peer from a broken path.
    var peerReports: UInt64 = 0
    var remoteSenderPacketCount: UInt32?
    var sent: UInt64 = 0
    var received: UInt64 = 0
    private var rng: IntervalRandom
    /// Compact NTP times of the SRs we sent last (a ring), to check the LSR of reports.
    private var recentSenderReports: [UInt32]
    private var nextSenderReportSlot = 0

    /// `seed` makes the report times repeatable (tests in virtual time); nil draws them from
    /// the system's secure generator, as RFC 3550 §6.2 intends (no two members in step).
    init(interval: MediaTime, seed: UInt64? = nil) {
        self.interval = interval
        self.rng = IntervalRandom(seed: seed)
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

    /// The NTP time of `instant` given the wall clock's offset from media time (what the
    /// driver reads off its clocks; fixed in virtual time).
    static func ntp(at instant: MediaTime, wallClockOffset: Int64) -> NTPTimestamp {
        NTPTimestamp(unixSeconds: Double(instant.nanoseconds + wallClockOffset) / 1e9)
    }
}

/// The randomness of RTCP report times: secure, or seeded (SplitMix64) for repeatable runs.
struct IntervalRandom: RandomNumberGenerator {
    private var secure = SecureRandomNumberGenerator()
    private var state: UInt64?

    init(seed: UInt64?) { state = seed }

    mutating func next() -> UInt64 {
        guard var z = state else { return secure.next() }
        z &+= 0x9E37_79B9_7F4A_7C15
        state = z
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
