import VoiceMediaTypes
import VoiceSupport
/// How an Opus sender protects its audio against the loss its peer reports: whether in-band FEC
/// is on, the packet-loss hint that sizes it, and the bitrate. A pure value fed one RTCP report
/// at a time; the stream applies what it returns to the encoder.
///
/// The shape follows what libopus 1.3 does with these settings, measured with PESQ-WB on speech
/// (see the README's quality table):
/// - The hint is not free: it makes SILK code each frame more robustly (less long-term
///   prediction) and pays for the redundant copy out of the same bitrate, so a hint well above
///   the real loss costs more clean quality than the redundancy wins back. The hint therefore
///   follows the measured loss (at `hintPerLossPercent` per percent), within a small range.
/// - libopus only emits redundancy when the bitrate, discounted by the hint, clears a threshold;
///   at low bitrates and complexity a small hint silently produces none. While FEC is on, the
///   bitrate rises to `fecBitrate` so that the redundancy has room and the primary signal keeps
///   most of what it had.
/// - Protection starts with the first packet, at `initialHint`, rather than after the first
///   report; it is switched off once `cleanReportsToRelax` reports in a row show no loss and
///   the loss estimate has decayed.
/// - The sender checks what libopus really sent (``OpusSILKFlags``): if voiced packets keep
///   going out without redundancy while FEC is on, the hint is too small for this bitrate and
///   complexity, and it is raised until redundancy appears.
struct OpusLossAdaptation: Hashable, Sendable {
    /// Encoder settings to apply.
    struct Setting: Hashable, Sendable {
        /// In-band FEC on or off.
        var fec: Bool
        /// The packet-loss hint, percent.
        var lossHint: Int
        /// Target bitrate, bits per second.
        var bitrate: Int
    }

    /// The policy's tuning.
    struct Parameters: Hashable, Sendable {
        /// Hint from the first packet until reports say otherwise; 0 starts unprotected.
        var initialHint = 3
        /// Hint per percent of measured loss.
        var hintPerLossPercent = 0.5
        /// Smallest hint while FEC is on.
        var minimumHint = 2
        /// Largest hint: above it the clean-signal cost outweighs what FEC recovers.
        var maximumHint = 6
        /// A report below this fraction lost counts as clean.
        var cleanFraction = 0.01
        /// Clean reports in a row before FEC is switched off (and the loss estimate must have
        /// decayed below `cleanFraction`). One: the first report (after 1.25–2.5 s at the
        /// default interval, some 100 packets) ends the speculative protection a call starts with.
        var cleanReportsToRelax = 1
        /// Bitrate while FEC is on, as a multiple of the clean bitrate (capped by `ceiling`).
        var fecBitrateFactor = 1.25
        /// Voiced packets in a row sent without redundancy, while FEC is on, before the hint rises.
        var unprotectedVoicedLimit = 25
        /// How much the hint rises each time.
        var hintStep = 2
    }

    /// The highest hint the policy uses: libopus's rate discount for loss stops growing at 25.
    static let hintCeiling = 25

    let parameters: Parameters
    /// The bitrate on a clean link.
    let cleanBitrate: Int
    /// The most the peer accepts (its `maxaveragebitrate`), or the clean bitrate if it said nothing.
    let ceiling: Int
    /// What the encoder should be set to now.
    private(set) var setting: Setting
    /// Loss estimate, 0…1: rises at once with a report, decays halfway towards each lower one.
    private(set) var estimate = 0.0
    private var cleanReports = 0
    /// Voiced packets sent in a row without redundancy while FEC was on.
    private var unprotectedVoiced = 0
    /// The smallest hint seen to be needed for libopus to send redundancy; 0 until then.
    private(set) var hintFloor = 0

    /// - Parameters:
    ///   - bitrate: the negotiated bitrate for a clean link.
    ///   - ceiling: the highest bitrate the peer accepts; nil means `bitrate`.
    init(bitrate: Int, ceiling: Int? = nil, parameters: Parameters = Parameters()) {
        self.parameters = parameters
        cleanBitrate = bitrate
        self.ceiling = max(bitrate, ceiling ?? bitrate)
        setting = Setting(fec: false, lossHint: 0, bitrate: bitrate)
        if parameters.initialHint > 0 { setting = protected(hint: parameters.initialHint) }
    }

    /// The policy for a stream sending with `settings`: protection from the first packet at its
    /// `packetLossPercent`.
    init(settings: OpusSettings) {
        var parameters = Parameters()
        parameters.initialHint = settings.packetLossPercent
        self.init(bitrate: settings.bitrate, ceiling: settings.maxAverageBitrate, parameters: parameters)
    }

    /// The bitrate while FEC is on.
    var fecBitrate: Int { min(ceiling, Int(Double(cleanBitrate) * parameters.fecBitrateFactor)) }

    /// Takes the fraction lost (0…1) from a peer's report block about our stream; returns the new
    /// setting if it changed.
    mutating func reportReceived(fractionLost: Double) -> Setting? {
        let reported = min(1, max(0, fractionLost.isNaN ? 0 : fractionLost))
        estimate = reported >= estimate ? reported : (estimate + reported) / 2
        let before = setting
        if reported < parameters.cleanFraction {
            cleanReports += 1
            if cleanReports >= parameters.cleanReportsToRelax, estimate < parameters.cleanFraction {
                setting = Setting(fec: false, lossHint: 0, bitrate: cleanBitrate)
            } else if setting.fec {
                setting = protected(hint: hint(for: estimate))
            }
        } else {
            cleanReports = 0
            setting = protected(hint: hint(for: estimate))
        }
        return setting == before ? nil : setting
    }

    /// Takes the SILK flags of a packet just sent; returns a new setting when voiced packets have
    /// gone out without redundancy `unprotectedVoicedLimit` times in a row while FEC was on.
    mutating func packetSent(_ flags: OpusSILKFlags) -> Setting? {
        guard setting.fec, setting.lossHint > 0, flags.voiced else { return nil }
        guard !flags.lbrr else {
            unprotectedVoiced = 0
            return nil
        }
        unprotectedVoiced += 1
        guard unprotectedVoiced >= parameters.unprotectedVoicedLimit, setting.lossHint < Self.hintCeiling else { return nil }
        unprotectedVoiced = 0
        hintFloor = min(Self.hintCeiling, setting.lossHint + max(1, parameters.hintStep))
        setting.lossHint = hintFloor
        return setting
    }

    private func hint(for loss: Double) -> Int {
        let scaled = Int((loss * 100 * parameters.hintPerLossPercent).rounded())
        return max(hintFloor, min(parameters.maximumHint, max(parameters.minimumHint, scaled)))
    }

    private func protected(hint: Int) -> Setting {
        Setting(fec: true, lossHint: hint, bitrate: fecBitrate)
    }
}
