import CoreMetrics
import VoiceMedia
import VoiceRTP
import VoiceSupport

/// The client's metrics, through swift-metrics: whatever backend the app bootstraps
/// (Prometheus, StatsD, OpenTelemetry…), or the factory in
/// ``VoiceClientConfiguration/metricsFactory``.
///
/// | label | kind | dimensions | what |
/// |---|---|---|---|
/// | `voice_calls_active` | meter | | calls connected now |
/// | `voice_call_setups_total` | counter | `direction` (`outgoing`/`incoming`) | calls that connected |
/// | `voice_call_failures_total` | counter | `direction`, `code` (the `VoiceError` code) | calls that ended before connecting, and connected calls that ended with an error |
/// | `voice_call_setup_seconds` | timer | `direction` | `connect()` or `accept()` to connected |
/// | `voice_rtp_packets_sent_total` | counter | | RTP packets sent |
/// | `voice_rtp_packets_received_total` | counter | | RTP packets received and authenticated |
/// | `voice_rtp_packets_lost_total` | counter | | packets the peer sent that never arrived |
/// | `voice_srtp_failures_total` | counter | | packets refused by SRTP (authentication or replay) |
/// | `voice_jitter_ms` | recorder | | interarrival jitter, each call once a second |
/// | `voice_mos` | recorder | | estimated MOS, each call once a second |
/// | `voice_jitter_buffer_delay_ms` | recorder | | the jitter buffer's playout delay, each call once a second |
final class VoiceMetrics: Sendable {
    let factory: any MetricsFactory
    let activeCalls: Meter
    let packetsSent: Counter
    let packetsReceived: Counter
    let packetsLost: Counter
    let srtpFailures: Counter
    let jitter: Recorder
    let mos: Recorder
    let jitterBufferDelay: Recorder
    /// `voice_call_setups_total` and `voice_call_setup_seconds`, outgoing then incoming.
    private let setups: (outgoing: Counter, incoming: Counter)
    private let setupTimes: (outgoing: Timer, incoming: Timer)

    init(factory: any MetricsFactory) {
        self.factory = factory
        activeCalls = Meter(label: "voice_calls_active", factory: factory)
        packetsSent = Counter(label: "voice_rtp_packets_sent_total", factory: factory)
        packetsReceived = Counter(label: "voice_rtp_packets_received_total", factory: factory)
        packetsLost = Counter(label: "voice_rtp_packets_lost_total", factory: factory)
        srtpFailures = Counter(label: "voice_srtp_failures_total", factory: factory)
        jitter = Recorder(label: "voice_jitter_ms", factory: factory)
        mos = Recorder(label: "voice_mos", factory: factory)
        jitterBufferDelay = Recorder(label: "voice_jitter_buffer_delay_ms", factory: factory)
        func direction(_ name: String) -> [(String, String)] { [("direction", name)] }
        setups = (
            Counter(label: "voice_call_setups_total", dimensions: direction("outgoing"), factory: factory),
            Counter(label: "voice_call_setups_total", dimensions: direction("incoming"), factory: factory)
        )
        setupTimes = (
            Timer(label: "voice_call_setup_seconds", dimensions: direction("outgoing"), factory: factory),
            Timer(label: "voice_call_setup_seconds", dimensions: direction("incoming"), factory: factory)
        )
    }

    static func direction(_ role: CallStateRole) -> String { role == .caller ? "outgoing" : "incoming" }

    /// A call connected `setupNanoseconds` after it was placed or accepted.
    func callConnected(_ role: CallStateRole, setupNanoseconds: Int64) {
        (role == .caller ? setups.outgoing : setups.incoming).increment()
        (role == .caller ? setupTimes.outgoing : setupTimes.incoming).recordNanoseconds(max(0, setupNanoseconds))
        activeCalls.increment()
    }

    /// A call ended; `wasConnected` when it had connected, `error` when it ended with one.
    func callEnded(_ role: CallStateRole, wasConnected: Bool, error: VoiceError?) {
        if wasConnected { activeCalls.decrement() }
        guard let error else { return }
        Counter(
            label: "voice_call_failures_total",
            dimensions: [("direction", Self.direction(role)), ("code", "\(error.code.rawValue)")], factory: factory
        ).increment()
    }
}

/// What one call last reported, so each second adds only what is new.
struct CallMetricsCursor {
    var packetsSent: UInt64 = 0
    var packetsReceived: UInt64 = 0
    var packetsLost: Int64 = 0
    var srtpFailures: UInt64 = 0

    /// Adds what `stats` shows beyond the last call's figures to `metrics`.
    mutating func report(_ stats: AudioStreamStats, to metrics: VoiceMetrics) {
        let srtp = stats.srtpAuthFailures + stats.srtpReplayFailures
        if stats.packetsSent > packetsSent { metrics.packetsSent.increment(by: Int64(stats.packetsSent - packetsSent)) }
        if stats.packetsReceived > packetsReceived {
            metrics.packetsReceived.increment(by: Int64(stats.packetsReceived - packetsReceived))
        }
        if stats.packetsLost > packetsLost { metrics.packetsLost.increment(by: stats.packetsLost - packetsLost) }
        if srtp > srtpFailures { metrics.srtpFailures.increment(by: Int64(srtp - srtpFailures)) }
        packetsSent = max(packetsSent, stats.packetsSent)
        packetsReceived = max(packetsReceived, stats.packetsReceived)
        packetsLost = max(packetsLost, stats.packetsLost)
        srtpFailures = max(srtpFailures, srtp)
        metrics.jitter.record(stats.jitterMs)
        metrics.mos.record(stats.mos)
        metrics.jitterBufferDelay.record(stats.jitterBuffer.playoutDelay.milliseconds)
    }
}
