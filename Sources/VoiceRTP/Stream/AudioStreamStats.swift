import VoiceICE
import VoiceMediaTypes
import VoiceSupport

/// A snapshot of one stream's media figures, published by the media thread a few times a second.
package struct AudioStreamStats: Sendable, Hashable {
    /// When the snapshot was taken.
    package var timestamp: MediaTime = .zero
    /// Codec name (`opus`, `PCMU`, `PCMA`).
    package var codec: String = ""
    /// The codec in use, with its settings; nil before the stream runs.
    package var mediaCodec: MediaCodec?
    /// RTP payload type in use.
    package var payloadType: UInt8 = 0
    /// Our SSRC and the peer's (0 until the first packet).
    package var ssrc: UInt32 = 0
    package var remoteSSRC: UInt32 = 0

    // Sent
    package var packetsSent: UInt64 = 0
    /// Payload octets sent (RTP header and SRTP tag not counted, as in RTCP SR).
    package var bytesSent: UInt64 = 0
    // Received
    package var packetsReceived: UInt64 = 0
    package var bytesReceived: UInt64 = 0
    /// Cumulative packets lost (RFC 3550: expected − received).
    package var packetsLost: Int64 = 0
    /// Fraction lost over the last RTCP interval, 0…1.
    package var fractionLost: Double = 0
    /// Interarrival jitter of what we receive, in ms (RFC 3550 A.8).
    package var jitterMs: Double = 0
    /// Round-trip time from RTCP LSR/DLSR, in ms; nil until measured.
    package var rttMs: Double?
    /// What the peer reports about our stream in its RTCP (fraction lost 0…1, jitter ms, cumulative lost).
    package var remoteFractionLost: Double = 0
    package var remoteJitterMs: Double = 0
    package var remotePacketsLost: Int64 = 0
    /// Peak level of the last frame sent and the last frame played, 0…32767.
    package var inputLevel: Int = 0
    package var outputLevel: Int = 0
    /// Jitter buffer figures.
    package var jitterBuffer: JitterBufferStats = JitterBufferStats()
    /// 48 kHz samples the jitter buffer's time-scale modification took out of played packets
    /// (accelerate) and put into them (stretch).
    package var timeStretchRemovedSamples: UInt64 = 0
    package var timeStretchAddedSamples: UInt64 = 0
    /// Estimated MOS (E-model), 1…4.5.
    package var mos: Double = 4.4
    /// SRTP packets rejected: failed authentication, replayed, or otherwise invalid.
    package var srtpAuthFailures: UInt64 = 0
    package var srtpReplayFailures: UInt64 = 0
    /// Packets that could not be parsed as RTP/RTCP or carried an unexpected payload type.
    package var malformedPackets: UInt64 = 0
    /// Datagrams at the media port that were not RTP or RTCP (STUN, DTLS, …; RFC 7983) and that
    /// nothing on the stream handles.
    package var unhandledDatagrams: UInt64 = 0
    /// Events (DTMF, BYE, device and path events) that found the stream's event queue full.
    package var eventsLost: UInt64 = 0
    /// WebRTC media (ICE + DTLS-SRTP): the selected candidate pair, nil without ICE or before
    /// one is selected.
    package var selectedCandidatePair: ICESelectedPair?
    /// Both sides' ICE candidates and the check list's pairs; nil without ICE.
    package var iceStatistics: ICEStatistics?
    /// What media each selected candidate pair carried.
    package var iceTraffic = ICETrafficLedger()
    /// How our TURN server is reached, when a relayed candidate is ours.
    package var relayTransport: TURNServer.Transport?
    /// The DTLS transport's state; nil for SDES or plain RTP.
    package var dtlsState: DTLSTransportState?
    /// The SRTP suite the DTLS handshake chose; nil otherwise.
    package var dtlsSRTPSuite: SRTPSuite?
    /// WebRTC media: milliseconds from the stream's start to its first path to the peer (ICE
    /// selected a pair), and from then to the DTLS-SRTP keys; 0 until known, and without ICE
    /// the handshake counts from the start. Read on the stream's clock, which handles datagrams
    /// on the media engine's ticks: what takes less than a tick can read 0.
    package var iceConnectMilliseconds: Double = 0
    package var dtlsHandshakeMilliseconds: Double = 0
    /// Connectivity checks refused: bad MESSAGE-INTEGRITY or FINGERPRINT, a wrong username.
    package var stunIntegrityFailures: UInt64 = 0
    /// DTLS datagrams from an address that is not the peer's proven path: dropped.
    package var offPathDTLSDatagrams: UInt64 = 0
    /// RTP and RTCP that arrived before the DTLS keys: dropped.
    package var packetsBeforeKeys: UInt64 = 0
    /// Authenticated, well-formed RTP packets from an SSRC other than the one being played
    /// (forged, stale or replayed from another call): counted, never played.
    package var foreignSourcePackets: UInt64 = 0
    /// Packets of a new source held back on probation (RFC 3550 A.1: two in sequence make it
    /// valid), not played and not in ``packetsReceived``.
    package var probationPackets: UInt64 = 0
    /// Received frames played as silence without decoding because the peer announced them
    /// silent (a conference leg), the ones decoded anyway to check that, and whether a check
    /// found sound and the announced levels are no longer believed.
    package var framesNotDecoded: UInt64 = 0
    /// RFC 2198 (RED) packets received, and redundant blocks left out: another codec, RED
    /// inside RED, out of order, or not a whole number of frames back. Frames RED filled in
    /// are ``JitterBufferStats/recoveredByRedundancy``.
    package var redPacketsReceived: UInt64 = 0
    package var redBlocksRefused: UInt64 = 0
    /// RED packets sent, the redundant blocks they carried, and how many frames back our
    /// packets repeat now (0: plain packets).
    package var redPacketsSent: UInt64 = 0
    package var redBlocksSent: UInt64 = 0
    /// Redundant blocks sent whose Opus frame carries LBRR: a receiver that takes RED apart
    /// (Chromium's NetEq) counts their FEC as well as the primaries' (``fecPacketsSent``).
    package var fecCopiesSent: UInt64 = 0
    package var redDepth = 0
    /// What the received track played, in W3C `webrtc-stats` terms.
    package var inbound = InboundAudioCounters()
    /// The peer's last RFC 3611 VoIP Metrics block about our stream, when it sends them.
    package var remoteVoIPMetrics: RTCPVoIPMetrics?
    package var announcedSilenceVerified: UInt64 = 0
    package var announcedLevelsDistrusted = false
    /// Whether Opus in-band FEC is on, and the loss hint the encoder was given (percent).
    package var fecEnabled: Bool = false
    package var packetLossHint: Int = 0
    /// The Opus encoder's current target bitrate in bits per second (0 for G.711).
    package var sendBitrate: Int = 0
    /// Opus packets sent that carried in-band FEC (LBRR) for the frame before them.
    package var fecPacketsSent: UInt64 = 0
    /// Captured audio dropped because the stream fell behind, and playout reads that found no audio.
    package var captureOverflows: UInt64 = 0
    package var renderUnderruns: UInt64 = 0
    /// Device xruns recovered, by direction; suspends recovered in place; interruptions begun.
    package var captureXruns: UInt64 = 0
    package var renderXruns: UInt64 = 0
    package var deviceSuspends: UInt64 = 0
    package var deviceInterruptions: UInt64 = 0
    /// Times capture or render stood still for longer than ``DeviceActivityWatch/threshold``.
    package var captureStalls = 0
    package var renderStalls = 0
    /// Whether the device is interrupted now (the stream sends silence and plays nothing).
    package var isAudioInterrupted = false
    /// RTCP packets sent and received.
    package var rtcpSent: UInt64 = 0
    package var rtcpReceived: UInt64 = 0
    /// Sender and receiver reports from the source being played, and the packet count of its
    /// last sender report (nil before one).
    package var peerReports: UInt64 = 0
    /// RTCP report blocks about our stream: the peer receives our RTP (RFC 3550 §6.4: a
    /// receiver reports only on sources it has heard).
    package var reportsAboutUs: Int = 0
    package var remoteSenderPacketCount: UInt32?
    /// Where RTP goes now: the signaled address, or the one authenticated packets came from.
    package var remoteRTPAddress: SocketAddress?
    /// Times RTP followed authenticated packets to a new address (symmetric RTP).
    package var remoteAddressSwitches: UInt64 = 0
    /// Renegotiations (codec, payload type or keys) the stream has switched to.
    package var renegotiations: UInt64 = 0
    /// When the last media packet arrived, nil before the first.
    package var lastPacketReceived: MediaTime?

    package init() {}
}
