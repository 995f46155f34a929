import VoiceMediaTypes
import VoiceSupport
/// Everything a media stream needs to run, fixed for its lifetime (the remote address can change).
package struct AudioStreamConfiguration: Sendable {
    /// Local address to bind the RTP socket to (port 0 picks one).
    package var localAddress: SocketAddress
    /// The negotiated codec.
    package var codec: MediaCodec
    /// RTP payload type of the codec (the SDP's number).
    package var payloadType: UInt8
    /// Packetization time in ms: 10, 20, 40 or 60.
    package var ptime: Int
    /// RTP payload type of telephone-event (RFC 4733), if negotiated.
    package var telephoneEventPayloadType: UInt8?
    /// RTP payload type of RFC 2198 redundancy around the codec (`red/48000/2` with fmtp
    /// `111/111` for Opus), if negotiated: packets of this type are taken apart and their
    /// blocks of the codec buffered.
    package var redPayloadType: UInt8?
    /// Whether our packets carry RED when ``redPayloadType`` is negotiated, and how much
    /// (``REDSendPolicy``). Default adaptive: plain packets on a clean link, redundancy once
    /// the peer reports loss (measured with `voice-bench quality`: through bursts of loss RED
    /// recovers what Opus FEC, one frame deep, cannot).
    package var redSending: REDSendPolicy.Mode = .adaptive
    /// The most payload the peer takes on this stream, bits per second, when its description
    /// stated a bandwidth (`b=TIAS` or `b=AS`): with RED on, the primary frames and their
    /// copies share it (see ``REDSendPolicy``). Nil: no limit beyond the codec's own cap.
    package var peerBandwidthLimit: Int?
    /// Whether our RTCP carries an XR VoIP Metrics block (RFC 3611 §4.7) about the peer's
    /// stream: its description listed `a=rtcp-xr:voip-metrics`. Its burst figures tell the
    /// peer's ``REDSendPolicy`` how long our loss runs are.
    package var sendsVoIPMetrics = false
    /// The RTP header extension ID of RFC 6464 audio levels in the peer's packets, nil: none.
    package var audioLevelExtensionID: UInt8?
    /// SRTP keys, or `.unencrypted`.
    package var encryption: MediaEncryption
    /// RTCP on the RTP port (RFC 5761). When false a second socket on the next port carries RTCP.
    package var rtcpMux: Bool
    /// Mark packets DSCP EF (46).
    package var enableDSCP: Bool
    /// The jitter buffer's settings (its clock rate and frame duration are set from the codec).
    package var jitterBuffer: JitterBufferConfiguration
    /// Mean RTCP report interval (randomized ±50 % per RFC 3550; the first report comes sooner).
    package var rtcpInterval: MediaTime
    /// Adapt Opus in-band FEC to the loss the peer reports: protected from the first packet at
    /// the settings' `packetLossPercent`, then a hint of half the measured loss (2–6 %) with the
    /// bitrate raised towards `maxAverageBitrate`, off again on a clean link; the hint also rises
    /// when libopus is seen sending no redundancy for it. Only when the settings (and so the
    /// peer's `useinbandfec`) allow FEC. When false the encoder keeps the settings as given.
    package var adaptiveFEC: Bool
    /// Send to where the peer's authenticated media comes from (symmetric RTP, RFC 4961) rather
    /// than only to the address signaling named. Only with SRTP: plain RTP never moves the stream.
    package var symmetricRTP: Bool
    /// Our SSRC.
    package var ssrc: UInt32
    /// The first RTP sequence number and timestamp we send (random, RFC 3550 §5.1; fixed in
    /// tests that compare packets).
    package var initialSequenceNumber: UInt16
    package var initialTimestamp: UInt32
    /// Seeds the randomization of RTCP report times, for runs that must repeat exactly (virtual
    /// time); nil (the default) draws it from the system's secure generator.
    package var rtcpRandomSeed: UInt64?
    /// Our RTCP CNAME.
    package var cname: String

    /// A configuration with voice defaults: Opus 20 ms, rtcp-mux, adaptive FEC, 5 s RTCP.
    package init(
        localAddress: SocketAddress, codec: MediaCodec = .opus(OpusSettings()), payloadType: UInt8? = nil,
        ptime: Int = 20, encryption: MediaEncryption
    ) {
        self.localAddress = localAddress
        self.codec = codec
        self.payloadType = payloadType ?? codec.defaultPayloadType
        self.ptime = ptime
        self.telephoneEventPayloadType = 101
        self.encryption = encryption
        self.rtcpMux = true
        self.enableDSCP = false
        var jb = JitterBufferConfiguration()
        // The target's one frame above measured jitter leaves room for the packet after a loss
        // to arrive, so its FEC can stand in; the floor is that frame. The first second starts
        // a frame higher, while the jitter is unknown: time-scale modification sheds the excess
        // without dropping audio once the link shows itself clean.
        jb.minDelay = .milliseconds(20)
        jb.initialDelay = .milliseconds(40)
        self.jitterBuffer = jb
        self.rtcpInterval = .seconds(5)
        self.adaptiveFEC = true
        self.symmetricRTP = true
        self.ssrc = UInt32.random(in: 1...UInt32.max)
        // Below 2^15, as WebRTC does: SRTP's rollover counter is not signaled, so a receiver whose
        // first packet comes after the sequence number wrapped (the first packets lost, or sent
        // before it was ready) guesses it wrong and rejects every packet. Starting in the lower
        // half leaves 32,768 packets (11 minutes at 50 per second) before the first wrap.
        self.initialSequenceNumber = UInt16.random(in: 0...0x7FFF)
        self.initialTimestamp = UInt32.random(in: 0...UInt32.max)
        self.cname = "voice-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
    }
}

extension MediaCodec {
    /// True for Opus, whose encoder has FEC, DTX and a loss hint.
    var isOpus: Bool {
        if case .opus = self { return true }
        return false
    }
}
