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
