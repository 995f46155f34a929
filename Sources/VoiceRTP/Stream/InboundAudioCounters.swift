/// What the received audio track played, counted as the W3C `webrtc-stats` inbound RTP
/// stream counts it (`RTCInboundRtpStreamStats`), at 48 kHz, from the first packet on.
/// Fed one played frame at a time; allocation-free.
package struct InboundAudioCounters: Hashable, Sendable {
    /// `totalSamplesReceived`: samples played, concealed ones included.
    package var totalSamplesReceived: UInt64 = 0
    /// `concealedSamples`: samples made up by concealment for frames that did not come in time.
    package var concealedSamples: UInt64 = 0
    /// `silentConcealedSamples`: concealed samples that were silent.
    package var silentConcealedSamples: UInt64 = 0
    /// `concealmentEvents`: runs of concealed samples that follow a sample that was not.
    package var concealmentEvents: UInt64 = 0
    /// `totalSamplesDuration`: seconds of audio played.
    package var totalSamplesDuration: Double = 0
    /// `totalAudioEnergy`: the sum over frames of the frame's level (peak over full scale,
    /// 0…1) squared times its duration in seconds.
    package var totalAudioEnergy: Double = 0
    /// `fecPacketsReceived`: Opus frames that carry in-band FEC (LBRR) for the frame before
    /// them, as libwebrtc's NetEq counts its secondary payloads: a packet's own frame, and each
    /// RFC 2198 copy's (NetEq takes RED apart and looks into every frame). The copies
    /// themselves are not FEC there, nor here: they have counters of their own.
    package var fecPacketsReceived: UInt64 = 0
    /// `fecPacketsDiscarded`: of those, the ones not needed when they came: the frame they
    /// protect was already there, or its turn had passed (too late).
    package var fecPacketsDiscarded: UInt64 = 0
    /// Whether the last frame played was concealed.
    private var lastWasConcealed = false

    package init() {}

    /// An FEC payload came; `needed` says whether the frame it protects was still missing.
    package mutating func receivedFEC(needed: Bool) {
        fecPacketsReceived &+= 1
        if !needed { fecPacketsDiscarded &+= 1 }
    }

    /// One frame of `samples` samples at 48 kHz went to the device, concealed or not, with
    /// peak level `peak` (0…32767).
    package mutating func played(samples: Int, concealed: Bool, peak: Int) {
        guard samples > 0 else { return }
        let n = UInt64(samples)
        totalSamplesReceived &+= n
        let seconds = Double(samples) / 48_000
        totalSamplesDuration += seconds
        let level = Double(min(max(peak, 0), 32_767)) / 32_767
        totalAudioEnergy += level * level * seconds
        if concealed {
            concealedSamples &+= n
            if peak == 0 { silentConcealedSamples &+= n }
            if !lastWasConcealed { concealmentEvents &+= 1 }
        }
        lastWasConcealed = concealed
    }
}
