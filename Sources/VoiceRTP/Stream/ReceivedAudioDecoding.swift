import VoiceSupport

/// Which received frames a stream decodes: what its device does with the audio decides.
package enum ReceivedAudioDecoding: Sendable, Equatable {
    /// Every frame (a call's speaker).
    case always
    /// None: the jitter buffer runs and counts as ever, silence plays (a load generator's legs).
    case never
    /// Not the frames the peer announced (RFC 6464) at `dBov` −dBov or quieter, the level below
    /// which the device would drop the audio anyway: a conference mixer adds nothing under its
    /// silence level. RFC 6464 names this use: a mixer picks what to decode from the levels.
    case skipsAnnouncedSilence(dBov: Int)

    /// One integer for an atomic: −1 always, −2 never, else the level.
    package var code: Int {
        switch self {
        case .always: return -1
        case .never: return -2
        case .skipsAnnouncedSilence(let dBov): return min(127, max(0, dBov))
        }
    }

    package init(code: Int) {
        switch code {
        case -2: self = .never
        case 0...127: self = .skipsAnnouncedSilence(dBov: code)
        default: self = .always
        }
    }
}

/// Whether a frame about to play may go undecoded because its peer announced silence, as a
/// value fed the announced levels and asked at playout. It is conservative in time and checks
/// the peer:
///
/// - A frame may be skipped only when every packet that arrived within ``horizon`` carried a
///   level at or below the threshold: a frame plays at most the jitter buffer's longest delay
///   after it arrived, so no frame announced loud (or without a level) is ever skipped.
/// - Every ``verifyEvery``th frame that could be skipped is decoded anyway and measured. A peer
///   whose announced silence measures more than ``tolerance`` dB above the threshold is not
///   believed again on this stream (a broken or lying sender would otherwise be muted).
package struct AnnouncedSilence: Sendable {
    /// How long after the last packet not announced quiet frames are still decoded.
    package var horizon: MediaTime
    package static let verifyEvery = 25
    package static let tolerance = 10.0

    private enum Trust: Sendable {
        /// Levels are believed; `sinceCheck` frames skipped since the last verification.
        case believed(sinceCheck: Int)
        /// A verification found sound where silence was announced.
        case distrusted
    }
    private var trust = Trust.believed(sinceCheck: 0)
    /// When a packet last arrived that was not announced quiet; nil: none yet.
    private var lastLoud: MediaTime?
    /// Whether any packet has arrived (before that there is nothing to skip).
    private var heardAny = false
    /// Frames played without decoding, and frames decoded to check the peer's word.
    package private(set) var skipped: UInt64 = 0
    package private(set) var verified: UInt64 = 0

    package init(horizon: MediaTime) { self.horizon = horizon }

    /// What to do with the frame playing at `now`.
    package enum Decision: Equatable, Sendable {
        case decode
        case skip
        /// Decode it, then pass its measured level to ``checked(levelDBFS:threshold:)``.
        case verify
    }

    /// A packet arrived at `now` with `level` (−dBov; nil when it carried none).
    package mutating func received(level: UInt8?, threshold: Int, at now: MediaTime) {
        heardAny = true
        if level.map({ Int($0) < threshold }) ?? true { lastLoud = now }
    }

    /// Whether the frame playing at `now` is decoded.
    package mutating func decision(at now: MediaTime) -> Decision {
        guard heardAny, case .believed(let sinceCheck) = trust else { return .decode }
        if let lastLoud, now - lastLoud <= horizon { return .decode }
        if sinceCheck + 1 >= Self.verifyEvery {
            trust = .believed(sinceCheck: 0)
            verified += 1
            return .verify
        }
        trust = .believed(sinceCheck: sinceCheck + 1)
        skipped += 1
        return .skip
    }

    /// The level a verified frame measured: announced silence that is audible ends the trust.
    package mutating func checked(levelDBFS: Double, threshold: Int) {
        if levelDBFS > -Double(threshold) + Self.tolerance { trust = .distrusted }
    }

    /// Whether a verification caught the peer announcing silence over sound.
    package var isDistrusted: Bool {
        if case .distrusted = trust { return true }
        return false
    }
}
