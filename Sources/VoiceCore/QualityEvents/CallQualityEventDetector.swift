import VoiceSupport

/// Triggers and recovers the Sinch call-quality events (``CallQualityWarningEvent``). A pure
/// value: the call feeds it measurements with their times, and it returns the events they cause.
///
/// How each rule is measured here:
/// - **RTT** (`highRemoteInboundRtt`): each per-second sample's round-trip time from RTCP
///   (none until measured). Triggers above the threshold, recovers below it; exactly at it, neither.
/// - **Jitter and loss** (`highInboundJitter`, `highInboundPacketLoss`): one sample a second,
///   the inbound interarrival jitter (RFC 3550) and the fraction of inbound packets lost in that
///   second. Triggers when `badSamples` of the last `sampleWindow` are above the threshold
///   (strictly); recovers as soon as fewer are.
/// - **Missing media** (`missingMediaStream`): while the call is established and the peer is
///   expected to send (not held either way), no authenticated RTP packet for
///   `missingMediaWindow`; recovers with the next packet, or when the peer is no longer
///   expected to send.
/// - **Audio levels** (`constantAudioLevel`, `zeroAudioLevel`): level measurements (the peak of
///   the latest 20 ms frame, 0…32767) of each direction, five a second. Constant: once the
///   measurements cover `constantLevelWindow`, their population standard deviation over it is
///   below `constantLevelDeviation` of full scale. Zero: once they cover `zeroLevelWindow`, all
///   of them over it are 0, a peak of at most ``zeroLevelFloor`` counting as 0: a decoder turns
///   digital silence into a sample or two of noise, which is still no audio. A direction not measured (outbound while muted or held, inbound
///   while held) starts its windows over and recovers what it had triggered.
/// - **Output volume** (`lowOSOutputVolumeLevel`): the playback volume of the device the call
///   plays on (0…1), when it has one; below `lowOutputVolume` triggers, at or above recovers,
///   unknown recovers.
package struct CallQualityEventDetector: Sendable {
    package let configuration: CallQualityEventConfiguration
    /// The highest peak (of 32767) that still counts as a zero level: −72 dBFS.
    package static let zeroLevelFloor = 8

    private var rttHigh = false
    private var jitterSamples: [Bool] = []
    private var jitterHigh = false
    private var lossSamples: [Bool] = []
    private var lossHigh = false
    private var media = MediaPresence()
    private var inbound = LevelHistory()
    private var outbound = LevelHistory()
    private var volumeLow = false

    /// A detector with no history.
    package init(configuration: CallQualityEventConfiguration = CallQualityEventConfiguration()) {
        self.configuration = configuration
    }

    /// One network sample (once a second): RTT in ms (nil until measured), inbound jitter in
    /// ms, and the fraction (0…1) of inbound packets lost since the previous sample.
    package mutating func addNetworkSample(rttMs: Double?, jitterMs: Double, lossFraction: Double) -> [CallQualityWarningEvent] {
        var events: [CallQualityWarningEvent] = []
        let c = configuration
        if let rtt = rttMs, rtt.isFinite {
            if !rttHigh, rtt > c.rttThresholdMs {
                rttHigh = true
                events.append(.highRemoteInboundRtt(.trigger, mediaStream: .audio))
            } else if rttHigh, rtt < c.rttThresholdMs {
                rttHigh = false
                events.append(.highRemoteInboundRtt(.recover, mediaStream: .audio))
            }
        }
        if jitterMs.isFinite, let change = Self.window(&jitterSamples, &jitterHigh, bad: jitterMs > c.jitterThresholdMs, c) {
            events.append(.highInboundJitter(change, mediaStream: .audio))
        }
        if lossFraction.isFinite, let change = Self.window(&lossSamples, &lossHigh, bad: lossFraction > c.packetLossThreshold, c) {
            events.append(.highInboundPacketLoss(change, mediaStream: .audio))
        }
        return events
    }

    /// The media path: authenticated RTP packets received so far, and whether the peer is
    /// expected to send now (the call is established and neither side holds).
    package mutating func observeMedia(packetsReceived: UInt64, expected: Bool, now: MediaTime) -> [CallQualityWarningEvent] {
        switch media.observe(packetsReceived: packetsReceived, expected: expected, now: now, window: MediaTime(configuration.missingMediaWindow)) {
        case .some(let change): return [.missingMediaStream(change)]
        case .none: return []
        }
    }

    /// One level measurement of each direction (0…32767), or nil for a direction not measured
    /// now (its windows start over).
    package mutating func addLevels(inbound inLevel: Int?, outbound outLevel: Int?, now: MediaTime) -> [CallQualityWarningEvent] {
        Self.levelEvents(&inbound, inLevel, source: .inbound, now: now, configuration)
            + Self.levelEvents(&outbound, outLevel, source: .outbound, now: now, configuration)
    }

    /// Adds one direction's measurement to its history; returns the events it causes.
    private static func levelEvents(
        _ history: inout LevelHistory, _ level: Int?, source: CallQualityWarningEvent.SourceStreamType, now: MediaTime,
        _ c: CallQualityEventConfiguration
    ) -> [CallQualityWarningEvent] {
        let (constant, zero) = history.add(level, at: now, configuration: c)
        return [constant.map { .constantAudioLevel($0, source: source) }, zero.map { .zeroAudioLevel($0, source: source) }].compactMap { $0 }
    }

    /// The output volume of the device the call plays on (0…1), nil when it has none or it is unknown.
    package mutating func observeOutputVolume(_ volume: Double?) -> [CallQualityWarningEvent] {
        let low = volume.map { $0 < configuration.lowOutputVolume } ?? false
        guard low != volumeLow else { return [] }
        volumeLow = low
        return [.lowOSOutputVolumeLevel(low ? .trigger : .recover)]
    }

    /// Adds one good or bad sample to a count window; returns the change it causes.
    private static func window(
        _ samples: inout [Bool], _ high: inout Bool, bad: Bool, _ c: CallQualityEventConfiguration
    ) -> CallQualityWarningEvent.EventType? {
        samples.append(bad)
        if samples.count > c.sampleWindow { samples.removeFirst(samples.count - c.sampleWindow) }
        let bads = samples.count(where: { $0 })
        if !high, bads >= c.badSamples {
            high = true
            return .trigger
        }
        if high, bads < c.badSamples {
            high = false
            return .recover
        }
        return nil
    }
}

/// Whether media arrives while it is expected (``CallQualityEventDetector``'s missing-media rule).
struct MediaPresence: Sendable, Hashable {
    private var lastCount: UInt64 = 0
    private var lastChange: MediaTime?
    private var missing = false

    mutating func observe(packetsReceived count: UInt64, expected: Bool, now: MediaTime, window: MediaTime) -> CallQualityWarningEvent.EventType? {
        guard expected else {
            lastChange = nil
            return recover()
        }
        guard let last = lastChange, count == lastCount else {
            lastCount = count
            lastChange = now
            return recover()
        }
        guard !missing, now - last >= window else { return nil }
        missing = true
        return .trigger
    }

    private mutating func recover() -> CallQualityWarningEvent.EventType? {
        guard missing else { return nil }
        missing = false
        return .recover
    }
}

/// One direction's recent level measurements (``CallQualityEventDetector``'s level rules).
struct LevelHistory: Sendable {
    private var samples: [(time: MediaTime, level: Int)] = []
    /// When the measurements began (nil: not measured now).
    private var since: MediaTime?
    private var constant = false
    private var zero = false

    /// Adds a measurement (nil: not measured) and returns the changes of the constant and zero rules.
    mutating func add(
        _ level: Int?, at now: MediaTime, configuration c: CallQualityEventConfiguration
    ) -> (constant: CallQualityWarningEvent.EventType?, zero: CallQualityWarningEvent.EventType?) {
        let constantWindow = MediaTime(c.constantLevelWindow)
        let zeroWindow = MediaTime(c.zeroLevelWindow)
        var isConstant = false
        var isZero = false
        if let level {
            if since == nil { since = now }
            samples.append((now, min(max(level, 0), 32_767)))
            let horizon = now - max(constantWindow, zeroWindow)
            if let firstKept = samples.firstIndex(where: { $0.time >= horizon }), firstKept > 0 {
                samples.removeFirst(firstKept)
            }
            let covered = since.map { now - $0 } ?? .zero
            if covered >= constantWindow {
                let recent = samples.filter { $0.time >= now - constantWindow }.map { Double($0.level) }
                let mean = recent.reduce(0, +) / Double(recent.count)
                let variance = recent.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(recent.count)
                isConstant = variance.squareRoot() < c.constantLevelDeviation * 32_767
            }
            if covered >= zeroWindow {
                isZero = samples.allSatisfy { $0.time < now - zeroWindow || $0.level <= CallQualityEventDetector.zeroLevelFloor }
            }
        } else {
            samples.removeAll()
            since = nil
        }
        return (Self.change(&constant, isConstant), Self.change(&zero, isZero))
    }

    private static func change(_ state: inout Bool, _ now: Bool) -> CallQualityWarningEvent.EventType? {
        guard state != now else { return nil }
        state = now
        return now ? .trigger : .recover
    }
}
