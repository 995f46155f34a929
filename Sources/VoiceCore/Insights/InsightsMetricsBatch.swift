import Foundation
import VoiceRTP

/// The stats samples Twilio's SDKs send to Insights: one sample a second, posted in batches of
/// ten as `quality-metrics-samples`/`metrics-sample`, and what is left when the call ends. A
/// value: the caller passes each second's stream figures and quality sample, and publishes the
/// event it gets back.
///
/// Each sample carries `timestamp` (ms since 1970), the cumulative counters (`total_packets_received`, `total_packets_lost`,
/// `total_packets_sent`, `total_bytes_received`, `total_bytes_sent`), the second's own
/// (`packets_received`, `packets_lost`, `packets_lost_fraction` in percent, as Twilio's SDK
/// gives it), `rtt` and `jitter` in ms, `mos`, `audio_level_in` and `audio_level_out`
/// (0…32767), `codec_name`, and the receiver's W3C counters (`concealed_samples`,
/// `total_samples_received`, `jitter_buffer_delay` in ms over `jitter_buffer_emitted_count`).
package struct InsightsMetricsBatch: Hashable, Sendable {
    /// Samples per event, as Twilio's SDK batches them.
    package static let batchSize = 10

    private var samples: [InsightsValue] = []
    private var lastReceived: UInt64?
    private var lastLost: Int64 = 0

    package init() {}

    /// Samples waiting for the next event.
    package var pendingCount: Int { samples.count }

    /// Adds the sample of `stats` (with `quality`, the second's quality sample) taken at
    /// `timestamp`; returns the event when a batch is full.
    package mutating func add(
        _ stats: AudioStreamStats, quality: CallQualitySample, at timestamp: Date, callSid: String?
    ) -> InsightsEvent? {
        var received: UInt64 = 0
        var lost: Int64 = 0
        if let last = lastReceived, stats.packetsReceived >= last {
            received = stats.packetsReceived - last
            lost = max(0, stats.packetsLost - lastLost)
        } else {
            received = stats.packetsReceived
            lost = max(0, stats.packetsLost)
        }
        lastReceived = stats.packetsReceived
        lastLost = stats.packetsLost
        var sample: [String: InsightsValue] = [
            "timestamp": .int(Int((timestamp.timeIntervalSince1970 * 1_000).rounded())),
            "total_packets_received": .int(Int(clamping: stats.packetsReceived)),
            "total_packets_lost": .int(Int(clamping: max(0, stats.packetsLost))),
            "total_packets_sent": .int(Int(clamping: stats.packetsSent)),
            "total_bytes_received": .int(Int(clamping: stats.bytesReceived)),
            "total_bytes_sent": .int(Int(clamping: stats.bytesSent)),
            "packets_received": .int(Int(clamping: received)),
            "packets_lost": .int(Int(clamping: lost)),
            "packets_lost_fraction": .double(quality.packetsLostFraction * 100),
            "jitter": .double(quality.jitterMs),
            "audio_level_in": .int(quality.inputLevel),
            "audio_level_out": .int(stats.outputLevel),
            "concealed_samples": .int(Int(clamping: stats.inbound.concealedSamples)),
            "total_samples_received": .int(Int(clamping: stats.inbound.totalSamplesReceived)),
            "jitter_buffer_emitted_count": .int(stats.jitterBuffer.emittedUnits),
            "jitter_buffer_delay": .double(stats.jitterBuffer.emittedDelay * 1_000),
        ]
        sample["rtt"] = quality.rttMs.map(InsightsValue.double) ?? .null
        sample["mos"] = quality.mos.map(InsightsValue.double) ?? .null
        sample["codec_name"] = stats.mediaCodec.map { .string($0.name) } ?? .null
        samples.append(.object(sample))
        guard samples.count >= Self.batchSize else { return nil }
        return flush(callSid: callSid, at: timestamp)
    }

    /// The samples not yet sent, as one event (the call ended); nil when there are none.
    package mutating func flush(callSid: String?, at timestamp: Date) -> InsightsEvent? {
        guard !samples.isEmpty else { return nil }
        defer { samples.removeAll(keepingCapacity: true) }
        return .metricsSamples(samples, callSid: callSid, at: timestamp)
    }
}
