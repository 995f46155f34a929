import VoiceMediaTypes
import VoiceSupport

/// One RTP audio session's logic as a value: what a captured frame becomes on the wire, what
/// an arriving datagram becomes in the jitter buffer, what plays next, and RTCP. It is fed
/// events and emits actions (``RTPStreamAction``) through an ``RTPStreamOutput``, as
/// `CallStateMachine` and the SIP transactions do:
///
/// - ``receive(_:length:from:at:output:)``: a datagram arrived (RTP or RTCP, RFC 5761);
/// - ``send(frame:at:output:)``: a capture frame is ready;
/// - ``playout(at:room:output:)``: the device needs the next frame;
/// - ``tick(at:output:)``: time passed (RTCP reports, published figures);
/// - ``adopt(_:)``: a renegotiation; ``setRemote(_:)``, ``sendDigits(_:)``, ``sendBye(at:output:)``
///   and the mute, hold and address-following switches.
///
/// Time is always passed in; no clock is read, no socket or device is touched, and nothing
/// blocks. The codec and packet protection are injected behind ``MediaEncoder``,
/// ``MediaDecoder`` and ``PacketProtection``, so the stream runs with libopus and libsrtp in the
/// media engine and with fakes in tests. Its state is held by value; the packet and sample
/// buffers it works in are allocated once, in `init`, and reused for every event (a copy of
/// the stream shares them, so a copy must not be driven while the original is), so in steady
/// state nothing is allocated per packet.
package struct RTPStream {
    /// The configuration in force: the one the stream started with, then each renegotiation's.
    package internal(set) var configuration: AudioStreamConfiguration { didSet { refreshSharedEncodingKey() } }
    /// The stream's encoding as it is now (it changes with a renegotiation and with the loss
    /// adaptation's settings). Stored, not computed: the media thread reads it every tick, and
    /// a computed property read through the driver would copy the whole stream.
    package private(set) var sharedEncodingKey: SharedEncodingKey
    var encoder: any MediaEncoder
    var decoder: any MediaDecoder
    /// Protects what we send (nil: plain RTP).
    var sendProtection: (any PacketProtection)?
    /// Checks what the peer sends: the same as ``sendProtection`` unless a renegotiation changed
    /// only the peer's key.
    var receiveProtection: (any PacketProtection)?
    var jitterBuffer: JitterBuffer
    /// Shortens and lengthens decoded packets when the jitter buffer asks.
    var timeStretch = TimeStretch()
    var timeStretchRemoved: UInt64 = 0
    var timeStretchAdded: UInt64 = 0
    var receiverStats: RTPReceiverStatistics
    var lastFractionLost: Double = 0
    let buffers: RTPStreamBuffers

    // Send state
    var frameSamples48k: Int
    var frameRTPUnits: Int
    var rtpClockRate: Int
    /// The duration of the peer's last frame, RTP units (its ptime, which may differ from ours).
    var receivedFrameUnits = 0
    /// What the received track played, in W3C `webrtc-stats` terms.
    var inbound = InboundAudioCounters()
    var sequenceNumber: UInt16
    var rtpTimestamp: UInt32
    var packetsSent: UInt64 = 0
    var octetsSent: UInt64 = 0
    var markerNext = true
    var lastSendTime: MediaTime?

    // Receive state
    var packetsReceived: UInt64 = 0
    var octetsReceived: UInt64 = 0
    var remoteSSRC: UInt32 = 0
    var lastPacketArrival: MediaTime?
    var authenticationFailures: UInt64 = 0
    var replayFailures: UInt64 = 0
    var malformedPackets: UInt64 = 0
    /// Which SSRC is played: forged or stale packets from others are counted, not played.
    var sourceGate = RTPSourceGate()
    var foreignSourcePackets: UInt64 = 0
    /// Packets of a new source held back while it was on probation (RFC 3550 A.1): not played.
    var probationPackets: UInt64 = 0
    /// The newest RFC 6464 level the peer's packets carried (−dBov, 0 loudest … 127 silence),
    /// until the driver takes it; and how many packets carried one.
    var receivedAudioLevel: UInt8?
    package internal(set) var audioLevelsReceived: UInt64 = 0
    /// Times media followed authenticated packets to a new source address (symmetric RTP).
    var remoteAddressSwitches: UInt64 = 0
    /// The highest sequence number the played source has sent: only a packet newer than it may
    /// move the stream to another address.
    var newestSequence: UInt16?
    var renegotiations: UInt64 = 0
    var inputLevel = 0
    var outputLevel = 0
    /// The RFC 4733 event being received (see ``ReceivedTelephoneEvent``).
    var receivedTelephoneEvent = ReceivedTelephoneEvent.none
    var dtmf = DTMFState()

    // RTCP and adaptation
    var rtcp: RTCPState
    /// Where media goes: nil until ``setRemote(_:)``.
    package internal(set) var remote: RemoteEndpoints?
    var nextStatsPublish: MediaTime?
    var fecEnabled = false { didSet { refreshSharedEncodingKey() } }
    var lossHint = 0 { didSet { refreshSharedEncodingKey() } }
    var sendBitrate = 0 { didSet { refreshSharedEncodingKey() } }
    var fecPacketsSent: UInt64 = 0
    /// The FEC policy, for an Opus stream with adaptive FEC whose peer takes FEC.
    var lossAdaptation: OpusLossAdaptation?
    var startTime: MediaTime?

    /// When true, captured frames are sent as silence (the stream keeps sending).
    package var isMuted = false
    /// When true, silence is sent and nothing is played.
    package var isOnHold = false
    /// Which received frames are decoded (the others play as silence; the jitter buffer runs
    /// as ever): all, none (a load generator's legs), or not those the peer announced silent
    /// (a conference leg).
    package var receivedAudioDecoding = ReceivedAudioDecoding.always
    /// What the peer's announced levels allow to go undecoded.
    var announcedSilence: AnnouncedSilence
    /// Which blocks of the peer's RED packets are played, and what was left out.
    var redFilter = REDBlockFilter()
    /// RED packets received, and redundant blocks that could not be placed (an offset that is
    /// not a whole number of frames).
    var redPacketsReceived: UInt64 = 0
    var redBlocksUnplaced: UInt64 = 0
    /// The deepest redundancy (in frames) the peer's RED packets carried lately, and when.
    var redDepthSeen: (depth: Int, at: MediaTime) = (0, .zero)
    /// How many earlier frames our packets repeat (RFC 2198), the frames kept for that, and
    /// the RED packets and redundant blocks sent.
    var redPolicy: REDSendPolicy
    var redHistory = REDHistory()
    var redPacketsSent: UInt64 = 0
    var redBlocksSent: UInt64 = 0
    /// Of the redundant blocks sent, the Opus frames that carry LBRR of their own.
    var fecCopiesSent: UInt64 = 0
    /// Whether media follows the peer's authenticated packets to a new address (symmetric RTP,
    /// RFC 4961); starts as the configuration says.
    package var followsPeerAddress: Bool
    /// The wall clock's offset from media time, in nanoseconds: RTCP's NTP timestamps and
    /// round trips are read on it. The driver keeps it current; in virtual time it is fixed.
    package var wallClockOffset: Int64 = 0

    /// A stream for `configuration` with its codec and protection made by the caller (one
    /// protection for both directions, or none).
    package init(
        configuration c: AudioStreamConfiguration, encoder: any MediaEncoder, decoder: any MediaDecoder,
        protection: (any PacketProtection)?
    ) {
        configuration = c
        sharedEncodingKey = SharedEncodingKey(codec: c.codec, ptime: c.ptime, fec: false, lossHint: 0, bitrate: 0)
        self.encoder = encoder
        self.decoder = decoder
        sendProtection = protection
        receiveProtection = protection
        rtpClockRate = c.codec.rtpClockRate
        receiverStats = RTPReceiverStatistics(clockRate: c.codec.rtpClockRate)
        frameSamples48k = 48 * c.ptime
        frameRTPUnits = rtpClockRate / 1000 * c.ptime
        jitterBuffer = Self.makeJitterBuffer(for: c)
        announcedSilence = AnnouncedSilence(horizon: Self.announcedSilenceHorizon(for: c))
        redPolicy = REDSendPolicy(mode: c.redSending)
        buffers = RTPStreamBuffers()
        rtcp = RTCPState(interval: c.rtcpInterval, seed: c.rtcpRandomSeed)
        lossAdaptation = Self.makeLossAdaptation(for: c)
        followsPeerAddress = c.symmetricRTP
        sequenceNumber = c.initialSequenceNumber
        rtpTimestamp = c.initialTimestamp
        adoptCodecSettings()
        refreshSharedEncodingKey()
    }

    private mutating func refreshSharedEncodingKey() {
        let key = SharedEncodingKey(
            codec: configuration.codec, ptime: configuration.ptime, fec: fecEnabled, lossHint: lossHint, bitrate: sendBitrate)
        if key != sharedEncodingKey { sharedEncodingKey = key }
    }

    /// 48 kHz samples in one frame at the current ptime.
    package var samplesPerFrame: Int { frameSamples48k }

    /// How long frames are still decoded after a packet not announced silent: twice the
    /// longest the jitter buffer holds a packet, so none announced loud is ever skipped.
    static func announcedSilenceHorizon(for c: AudioStreamConfiguration) -> MediaTime {
        MediaTime(nanoseconds: 2 * c.jitterBuffer.maxDelay.nanoseconds + Int64(c.ptime) * 1_000_000)
    }

    /// A jitter buffer for the codec and ptime of `c`.
    package static func makeJitterBuffer(for c: AudioStreamConfiguration) -> JitterBuffer {
        var jb = c.jitterBuffer
        jb.clockRate = c.codec.rtpClockRate
        jb.frameDuration = c.codec.rtpClockRate / 1000 * c.ptime
        // Enough slots for the longest delay plus reordering margin, and no more (memory per stream).
        jb.capacity = min(jb.capacity, Int(jb.maxDelay.nanoseconds / 1_000_000) / c.ptime + 12)
        return JitterBuffer(configuration: jb)
    }

    /// The FEC policy for `c`: for an Opus stream with adaptive FEC whose peer takes FEC.
    static func makeLossAdaptation(for c: AudioStreamConfiguration) -> OpusLossAdaptation? {
        guard case .opus(let settings) = c.codec, c.adaptiveFEC, settings.fec else { return nil }
        return OpusLossAdaptation(settings: settings)
    }

    /// Takes the FEC, loss hint and bitrate figures from the configuration's codec, and applies
    /// the loss adaptation's first setting to the encoder.
    mutating func adoptCodecSettings() {
        if case .opus(let settings) = configuration.codec {
            fecEnabled = settings.fec
            lossHint = settings.packetLossPercent
            sendBitrate = settings.bitrate
        } else {
            fecEnabled = false
            lossHint = 0
            sendBitrate = 0
        }
        if let setting = lossAdaptation?.setting { apply(setting) }
    }

    /// Sends to `endpoints` from now on. A new RTP address (a transfer, a re-INVITE to another
    /// party) may send from a new SSRC at once: it proves itself like the first source.
    package mutating func setRemote(_ endpoints: RemoteEndpoints?) {
        if let old = remote, let new = endpoints, new.rtp != old.rtp {
            sourceGate.reset()
            newestSequence = nil
        }
        remote = endpoints
    }

    /// Time passed: the first call starts RTCP; reports go out when due, and the figures are
    /// published every 200 ms. Nothing happens after ``sendBye(at:output:)``.
    package mutating func tick<Output: RTPStreamOutput>(at now: MediaTime, output: inout Output) {
        if rtcp.byeSent { return }
        if startTime == nil {
            startTime = now
            rtcp.start(at: now)
        }
        if now >= rtcp.nextReport { sendRTCP(now: now, bye: false, output: &output) }
        if now >= nextStatsPublish ?? now {
            _ = output.perform(.publish(statistics(at: now)))
            nextStatsPublish = now + .milliseconds(200)
        }
    }

    /// The stream is leaving: an RTCP BYE goes out, and nothing is sent after it, so the
    /// figures (``statistics(at:)``) are final. Idempotent.
    package mutating func sendBye<Output: RTPStreamOutput>(at now: MediaTime, output: inout Output) {
        guard !rtcp.byeSent else { return }
        sendRTCP(now: now, bye: true, output: &output)
        rtcp.byeSent = true
    }

    /// Whether the BYE has gone out.
    package var hasSentBye: Bool { rtcp.byeSent }


    @inline(__always) func to48k(_ rtpUnits: Int) -> Int { rtpUnits * 48_000 / rtpClockRate }
}

/// The remote endpoints media goes to.
package struct RemoteEndpoints: Sendable, Hashable {
    package var rtp: SocketAddress
    package var rtcp: SocketAddress?

    package init(rtp: SocketAddress, rtcp: SocketAddress?) {
        self.rtp = rtp
        self.rtcp = rtcp
    }
}

/// The packet and sample buffers a stream works in: allocated once, reused for every event.
final class RTPStreamBuffers {
    /// Room for the longest frame (60 ms at 48 kHz), for frames the stream makes itself.
    let frame: UnsafeMutableBufferPointer<Int16>
    /// Up to 120 ms of 48 kHz output.
    let decoded: UnsafeMutableBufferPointer<Int16>
    let send: UnsafeMutableRawBufferPointer
    let playoutPayload: UnsafeMutableRawBufferPointer
    /// The frames last sent, for RED (``REDHistory``).
    let redHistory: UnsafeMutableRawBufferPointer

    init() {
        frame = .allocate(capacity: 48 * 60)
        frame.initialize(repeating: 0)
        decoded = .allocate(capacity: 48 * 120)
        decoded.initialize(repeating: 0)
        send = .allocate(byteCount: RTPStream.packetCapacity, alignment: 16)
        playoutPayload = .allocate(byteCount: RTPStream.packetCapacity, alignment: 16)
        redHistory = .allocate(byteCount: REDHistory.slotSize * REDHistory.slots, alignment: 16)
    }

    deinit {
        frame.deallocate()
        decoded.deallocate()
        send.deallocate()
        playoutPayload.deallocate()
        redHistory.deallocate()
    }
}

extension RTPStream {
    /// The largest datagram the stream builds or takes: an Ethernet MTU plus room for a
    /// protection trailer.
    package static let packetCapacity = 1_500 + 256
}
