import Foundation

/// Raises and clears Twilio's five call-quality warnings from one ``CallQualitySample`` a second,
/// with the thresholds and clearing rules of the TVOCall reference. A pure value: no clock, no
/// threads; the caller passes each sample's time.
///
/// | warning | raised when | cleared when |
/// |---|---|---|
/// | `highRtt` | ≥ 3 of the last 5 RTT samples > 400 ms | all of the last 5 < 400 ms |
/// | `highJitter` | ≥ 3 of the last 5 jitter samples > 30 ms | all of the last 5 < 30 ms |
/// | `highPacketsLostFraction` | mean of the last 7 samples > 3 % | mean of the last 7 ≤ 1 % |
/// | `lowMos` | ≥ 3 of the last 5 MOS samples < 3.5 | all of the last 5 > 3.5 |
/// | `constantAudioInputLevel` | std. deviation of the last 10 unmuted input levels ≤ 1 % of 32767 (327.67) | std. deviation > 3 % of 32767 (983.01) |
///
/// Edge cases, decided here:
/// - **Exactly at a threshold**: "greater than" and "lower than" are strict, so a sample of exactly
///   400 ms RTT, 30 ms jitter or 3.5 MOS neither counts toward raising nor toward clearing. A mean
///   loss of exactly 3 % does not raise; exactly 1 % clears (≤). The standard deviation (population,
///   divided by n) raises at exactly 1 % (≤) and clears only above 3 %. Comparisons of means and
///   deviations allow 1e-9 of rounding, so the exact threshold behaves as stated.
/// - **Windows must be full to clear and, for the mean and deviation rules, to raise**: the 3-of-5
///   rules raise as soon as three bad samples are in the window (three samples suffice); clearing
///   needs five good ones. Loss needs seven samples, input level ten, before either decision.
/// - **Missing values**: a `nil` RTT (not yet measured) or MOS (nothing received yet), and any
///   non-finite value, is not a sample: it neither enters its window nor ages the others.
///   Loss fractions are clamped to 0…1, input levels to 0…32767.
/// - **Mute**: a muted sample (``CallQualitySample/isMuted``, also to be set while on hold, when
///   silence is sent) empties the input-level window, and clears an active
///   `constantAudioInputLevel` warning: the warning is about the microphone, which is not being
///   sent. After unmuting, ten new samples are needed before it can be raised again.
package struct CallQualityWarningDetector: Hashable, Sendable {
    /// RTT above which a sample counts toward `highRtt`, in ms.
    package static let rttThresholdMs = 400.0
    /// Jitter above which a sample counts toward `highJitter`, in ms.
    package static let jitterThresholdMs = 30.0
    /// MOS below which a sample counts toward `lowMos`.
    package static let mosThreshold = 3.5
    /// Mean loss fraction above which `highPacketsLostFraction` is raised.
    package static let packetsLostFractionRaiseThreshold = 0.03
    /// Mean loss fraction at or below which `highPacketsLostFraction` is cleared.
    package static let packetsLostFractionClearThreshold = 0.01
    /// The largest input level.
    package static let maximumInputLevel = 32767
    /// Input-level standard deviation at or below which `constantAudioInputLevel` is raised (1 % of 32767).
    package static let inputLevelRaiseDeviation = 0.01 * Double(maximumInputLevel)
    /// Input-level standard deviation above which `constantAudioInputLevel` is cleared (3 % of 32767).
    package static let inputLevelClearDeviation = 0.03 * Double(maximumInputLevel)
    /// Samples in the RTT, jitter and MOS windows.
    package static let countWindowSize = 5
    /// Bad samples in the RTT, jitter and MOS windows that raise a warning.
    package static let countRaiseThreshold = 3
    /// Samples in the loss window.
    package static let lossWindowSize = 7
    /// Samples in the input-level window.
    package static let inputLevelWindowSize = 10

    private static let tolerance = 1e-9

    /// A sliding window of the most recent values.
    private struct Window: Hashable, Sendable {
        let capacity: Int
        private(set) var values: [Double] = []

        init(capacity: Int) { self.capacity = capacity }

        var isFull: Bool { values.count == capacity }

        mutating func append(_ value: Double) {
            values.append(value)
            if values.count > capacity { values.removeFirst(values.count - capacity) }
        }

        mutating func removeAll() { values.removeAll() }

        var mean: Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }

        var standardDeviation: Double {
            guard !values.isEmpty else { return 0 }
            let m = mean
            let variance = values.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(values.count)
            return variance.squareRoot()
        }

        var payload: InsightsValue { .array(values.map { .double($0) }) }
    }

    /// The warnings in effect.
    package private(set) var warnings: Set<CallQualityWarning> = []
    private var rtt = Window(capacity: countWindowSize)
    private var jitter = Window(capacity: countWindowSize)
    private var mos = Window(capacity: countWindowSize)
    private var loss = Window(capacity: lossWindowSize)
    private var inputLevel = Window(capacity: inputLevelWindowSize)

    /// A detector with no warnings and empty windows.
    package init() {}

    /// Adds the sample taken at `timestamp` and returns the change of warnings it causes, or `nil`
    /// when the set is unchanged. The change's Insights events carry `callSid` and `timestamp`.
    package mutating func add(
        _ sample: CallQualitySample, at timestamp: Date, callSid: String? = nil
    ) -> CallQualityWarningChange? {
        let previous = warnings
        var payloads: [CallQualityWarning: [String: InsightsValue]] = [:]

        if let value = sample.rttMs, value.isFinite { rtt.append(value) }
        if sample.jitterMs.isFinite { jitter.append(sample.jitterMs) }
        if let value = sample.mos, value.isFinite { mos.append(value) }
        if sample.packetsLostFraction.isFinite { loss.append(min(max(sample.packetsLostFraction, 0), 1)) }

        evaluateCount(.highRtt, rtt, bad: { $0 > Self.rttThresholdMs }, good: { $0 < Self.rttThresholdMs },
                      threshold: Self.rttThresholdMs, payloads: &payloads)
        evaluateCount(.highJitter, jitter, bad: { $0 > Self.jitterThresholdMs }, good: { $0 < Self.jitterThresholdMs },
                      threshold: Self.jitterThresholdMs, payloads: &payloads)
        evaluateCount(.lowMos, mos, bad: { $0 < Self.mosThreshold }, good: { $0 > Self.mosThreshold },
                      threshold: Self.mosThreshold, payloads: &payloads)
        evaluateLoss(payloads: &payloads)
        evaluateInputLevel(sample, payloads: &payloads)

        guard warnings != previous else { return nil }
        var events: [InsightsEvent] = []
        for warning in CallQualityWarning.allCases where previous.contains(warning) && !warnings.contains(warning) {
            events.append(.qualityWarning(warning, raised: false, callSid: callSid, at: timestamp,
                                          payload: payloads[warning] ?? [:]))
        }
        for warning in CallQualityWarning.allCases where warnings.contains(warning) && !previous.contains(warning) {
            events.append(.qualityWarning(warning, raised: true, callSid: callSid, at: timestamp,
                                          payload: payloads[warning] ?? [:]))
        }
        return CallQualityWarningChange(current: warnings, previous: previous, insightsEvents: events)
    }

    private mutating func evaluateCount(
        _ warning: CallQualityWarning, _ window: Window, bad: (Double) -> Bool, good: (Double) -> Bool,
        threshold: Double, payloads: inout [CallQualityWarning: [String: InsightsValue]]
    ) {
        if warnings.contains(warning) {
            guard window.isFull, window.values.allSatisfy(good) else { return }
            warnings.remove(warning)
        } else {
            guard window.values.filter(bad).count >= Self.countRaiseThreshold else { return }
            warnings.insert(warning)
        }
        payloads[warning] = ["threshold": .double(threshold), "values": window.payload]
    }

    private mutating func evaluateLoss(payloads: inout [CallQualityWarning: [String: InsightsValue]]) {
        guard loss.isFull else { return }
        let mean = loss.mean
        let warning = CallQualityWarning.highPacketsLostFraction
        let threshold: Double
        if warnings.contains(warning) {
            threshold = Self.packetsLostFractionClearThreshold
            guard mean <= threshold + Self.tolerance else { return }
            warnings.remove(warning)
        } else {
            threshold = Self.packetsLostFractionRaiseThreshold
            guard mean > threshold + Self.tolerance else { return }
            warnings.insert(warning)
        }
        payloads[warning] = ["threshold": .double(threshold), "mean": .double(mean), "values": loss.payload]
    }

    private mutating func evaluateInputLevel(
        _ sample: CallQualitySample, payloads: inout [CallQualityWarning: [String: InsightsValue]]
    ) {
        let warning = CallQualityWarning.constantAudioInputLevel
        if sample.isMuted {
            inputLevel.removeAll()
            if warnings.remove(warning) != nil { payloads[warning] = ["reason": "muted"] }
            return
        }
        inputLevel.append(Double(min(max(sample.inputLevel, 0), Self.maximumInputLevel)))
        guard inputLevel.isFull else { return }
        let deviation = inputLevel.standardDeviation
        let threshold: Double
        if warnings.contains(warning) {
            threshold = Self.inputLevelClearDeviation
            guard deviation > threshold + Self.tolerance else { return }
            warnings.remove(warning)
        } else {
            threshold = Self.inputLevelRaiseDeviation
            guard deviation <= threshold + Self.tolerance else { return }
            warnings.insert(warning)
        }
        payloads[warning] = [
            "threshold": .double(threshold), "standardDeviation": .double(deviation), "values": inputLevel.payload,
        ]
    }
}
