/// How many earlier frames an Opus stream repeats in RFC 2198 redundancy (RED), as a value fed
/// the peer's loss reports.
///
/// - ``Mode/off``: never.
/// - ``Mode/always(depth:)``: a fixed depth, 1 to 3.
/// - ``Mode/adaptive`` (the default): one frame back from the first packet, as Opus FEC
///   protects from the first packet, until the peer's first report says how the link is; then
///   off on a clean link, and at 2 % loss or more as deep as the peer's loss runs need:
///   - where the peer reports its bursts (an RTCP XR VoIP Metrics block whose bursts are runs
///     of consecutive losses, as our receivers send when the description asks for them) and
///     most losses come in runs: one frame less than the mean run (Opus FEC covers the frame
///     before the oldest copy), 1 to 3, whatever the fraction lost beyond 2 %;
///   - else one frame back, two at 8 % loss or more, as RTCP's fraction lost says nothing of
///     bursts (browsers send no burst metrics) and runs of three get common only under heavy loss.
///
///   It steps down one level after three reports in a row that would ask for less even at
///   the levels' floors (1 % for RED at all, 4 % for the loss rule's second frame); the first
///   report sets the level outright.
///
/// Measured with `voice-bench quality` (5 % loss in runs of three on average, 20 ± 20 ms
/// jitter, PESQ-WB median of nine, the same losses), with FEC on: one copy 3.21 at 136 kb/s,
/// two 3.49 at 205, three 3.79 at 273; FEC alone 2.95–3.14 at 67. Under random loss Opus FEC
/// alone recovers single losses, and the loss rule keeps one copy.
///
/// Each frame stays within the peer's Opus `maxaveragebitrate`, which caps an encoding; the
/// copies repeat frames already encoded, as browsers' RED does. Where the peer states a
/// bandwidth for the whole stream (`b=TIAS` or `b=AS`), the primary frame and its copies
/// share it: the stream lowers the encoder's bitrate to the primary's share, and uses a
/// shallower depth when that share would fall under 24 kbps.
package struct REDSendPolicy: Sendable, Equatable {
    package enum Mode: Sendable, Equatable {
        case off
        case always(depth: Int)
        case adaptive
    }

    package static let maximumDepth = 3
    static let onThreshold = 0.02
    static let deepThreshold = 0.08
    static let offFloor = 0.01
    static let shallowFloor = 0.04
    static let reportsToStepDown = 3
    /// The share of losses that must fall in runs for the runs' length to set the depth.
    static let burstShareThreshold = 0.5

    package let mode: Mode
    /// Frames repeated in each packet now (0: plain packets).
    package private(set) var depth: Int
    private var quietReports = 0
    /// Whether a report has come yet (until then the adaptive depth is a guess).
    private var reported = false
    /// The depth the peer's loss runs call for while most of its losses are in runs; nil: the
    /// loss rule decides.
    package private(set) var runDepth: Int?

    package init(mode: Mode) {
        self.mode = mode
        switch mode {
        case .off: depth = 0
        case .adaptive: depth = 1
        case .always(let d): depth = min(Self.maximumDepth, max(0, d))
        }
    }

    /// The peer reported its bursts and gaps of our packets (RFC 3611 VoIP Metrics), for
    /// packets `packetMilliseconds` long. Only bursts that are runs of consecutive losses
    /// (a gap threshold of 1) say how deep copies must reach, and only while most losses are
    /// in runs. The block's figures are totals since reception began (RFC 3611 §4.7): after a
    /// bursty spell, isolated losses later outweigh it and the loss rule takes over again.
    package mutating func burstsReported(_ metrics: RTCPVoIPMetrics, packetMilliseconds: Int) {
        guard case .adaptive = mode else { return }
        guard let run = metrics.meanLossRun(packetMilliseconds: packetMilliseconds), let share = metrics.burstLossShare,
            share >= Self.burstShareThreshold
        else {
            runDepth = nil
            return
        }
        runDepth = min(Self.maximumDepth, max(1, Int((run - 1).rounded(.up))))
    }

    /// The depth a fraction lost asks for with RED on from `on`: the loss runs' depth where
    /// known, else one copy, two from `deep`.
    private func wanted(_ fractionLost: Double, on: Double, deep: Double) -> Int {
        guard fractionLost >= on else { return 0 }
        return runDepth ?? (fractionLost >= deep ? 2 : 1)
    }

    /// The peer reported `fractionLost` (0…1) of our packets over its last interval.
    package mutating func reportReceived(fractionLost: Double) {
        guard case .adaptive = mode else { return }
        let wanted = wanted(fractionLost, on: Self.onThreshold, deep: Self.deepThreshold)
        if !reported {
            reported = true
            depth = wanted
            return
        }
        if wanted > depth {
            depth = wanted
            quietReports = 0
            return
        }
        guard depth > 0, self.wanted(fractionLost, on: Self.offFloor, deep: Self.shallowFloor) < depth else {
            quietReports = 0
            return
        }
        quietReports += 1
        if quietReports >= Self.reportsToStepDown {
            depth -= 1
            quietReports = 0
        }
    }
}
