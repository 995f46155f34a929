/// Encoder settings for an Opus media stream, with voice-call defaults.
public struct OpusSettings: Hashable, Sendable {
    /// Target bitrate on a clean link, in bits per second. Default 64 kbps: at complexity 5 this
    /// is what it takes for fullband speech to score PESQ-WB above 4.2 (32 kbps scores about 3.6).
    public var bitrate: Int
    /// The most this endpoint sends and the most it asks the peer to send (SDP
    /// `maxaveragebitrate`, RFC 7587), bits per second. While in-band FEC is on the stream raises
    /// its bitrate towards this, so the redundant copy does not starve the primary signal.
    /// Negotiation lowers it (and ``bitrate``) to the peer's `maxaveragebitrate`. Default
    /// 1.25 × ``bitrate``: 80 kbps.
    public var maxAverageBitrate: Int
    /// Complexity 0...10. Default 5: good quality at a modest CPU cost.
    public var complexity: Int
    /// CBR, VBR or constrained VBR. Default VBR.
    public var bitrateMode: OpusBitrateMode
    /// In-band forward error correction. Default on.
    public var fec: Bool
    /// Expected packet loss 0...100 %, which sizes the FEC. With adaptive FEC (the stream's
    /// default) this is the hint from the first packet until the peer's reports replace it; 0
    /// starts a call unprotected. Default 3 %.
    public var packetLossPercent: Int
    /// Discontinuous transmission during silence. Default off.
    public var dtx: Bool
    /// Coding mode. Default ``OpusApplication/voip``.
    public var application: OpusApplication
    /// Signal-type hint. Default ``OpusSignal/voice``.
    public var signal: OpusSignal
    /// Bandwidth cap. Default ``OpusBandwidth/fullband`` (no cap).
    public var maxBandwidth: OpusBandwidth

    /// Creates settings; every parameter defaults to the voice-call value documented on its property.
    public init(
        bitrate: Int = 64_000,
        maxAverageBitrate: Int? = nil,
        complexity: Int = 5,
        bitrateMode: OpusBitrateMode = .vbr,
        fec: Bool = true,
        packetLossPercent: Int = 3,
        dtx: Bool = false,
        application: OpusApplication = .voip,
        signal: OpusSignal = .voice,
        maxBandwidth: OpusBandwidth = .fullband
    ) {
        self.bitrate = bitrate
        self.maxAverageBitrate = max(bitrate, maxAverageBitrate ?? bitrate / 4 * 5)
        self.complexity = complexity
        self.bitrateMode = bitrateMode
        self.fec = fec
        self.packetLossPercent = packetLossPercent
        self.dtx = dtx
        self.application = application
        self.signal = signal
        self.maxBandwidth = maxBandwidth
    }

    /// Below this many bits per second a peer's cap (its `maxaveragebitrate`) also raises the
    /// complexity (see ``limited(toPeerMaximum:)``).
    package static let cappedBitrateThreshold = 48_000

    /// The settings for a peer that receives at most `cap` bits per second (its SDP
    /// `maxaveragebitrate`, RFC 7587): both bitrates capped. When the cap leaves less than
    /// ``cappedBitrateThreshold`` and the complexity is 5 or more (quality first; below 5 an app
    /// chose CPU), the complexity becomes 10: bitrate is the cheap lever, and where a peer
    /// denies it the encoder's effort is what is left. Measured with `voice-bench quality` at a
    /// baresip receiver that caps us at 32 kbps, through 5 % and 10 % loss with 20 ± 20 ms
    /// jitter: PESQ-WB 2.76 and 2.59 at complexity 5, 3.19 and 2.85 at 10 (baresip's own
    /// loss-configured stream: 2.99 and 2.72), for about twice the encoder's CPU on such calls.
    package func limited(toPeerMaximum cap: Int) -> OpusSettings {
        var capped = self
        capped.bitrate = min(bitrate, cap)
        capped.maxAverageBitrate = min(maxAverageBitrate, cap)
        if capped.maxAverageBitrate < min(maxAverageBitrate, Self.cappedBitrateThreshold), complexity >= 5 {
            capped.complexity = 10
        }
        return capped
    }

    /// Voice-call defaults: 64 kbps VBR on a clean link and up to 80 kbps while FEC is on,
    /// complexity 5, VOIP mode, adaptive in-band FEC (3 % hint until the peer reports), DTX off.
    /// Measured by `voice-bench quality` (PESQ-WB, 20 ± 20 ms jitter): about 4.3 clean, 3.9 at
    /// 5 % loss, 3.6 at 10 %, 3.4 with 5 % loss in bursts.
    public static let voice = OpusSettings()

    /// Complexity 10 at the same bitrates: about twice the encoder CPU of ``voice`` for a small
    /// gain in quality; for a few calls on a machine with CPU to spare.
    public static let highQuality = OpusSettings(complexity: 10)

    /// 32 kbps on a clean link, up to 40 kbps while FEC is on, complexity 5: for links where
    /// bandwidth is scarce (mobile data, many calls over one uplink). Lower quality than
    /// ``voice`` (about 3.6 clean).
    public static let lowBandwidth = OpusSettings(bitrate: 32_000)
}
