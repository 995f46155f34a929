#if canImport(Glibc)
    import Glibc
#endif
import Synchronization
import VoiceSupport

/// The real-time side of an ``AudioStream``. After it is attached to a ``MediaEngine`` worker,
/// only that worker's thread touches it. Every buffer is allocated here, once.
final class StreamCore: MediaTask {
    /// The configuration in force: the one the stream started with, then each renegotiation's
    /// (``adopt(_:)``).
    var configuration: AudioStreamConfiguration
    let control: StreamControl
    let rtpSocket: UDPSocket
    let rtcpSocket: UDPSocket?
    var encoder: any MediaEncoder
    var decoder: any MediaDecoder
    /// Protects what we send (nil: plain RTP).
    var srtpSend: SRTPSession?
    /// Unprotects what the peer sends: the same session as ``srtpSend`` unless a renegotiation
    /// changed only the peer's key.
    var srtpReceive: SRTPSession?
    var jitterBuffer: JitterBuffer
    /// Shortens and lengthens decoded packets when the jitter buffer asks.
    var timeStretch = TimeStretch()
    var timeStretchRemoved: UInt64 = 0
    var timeStretchAdded: UInt64 = 0
    var receiverStats: RTPReceiverStatistics
    var lastFractionLost: Double = 0
    let captureRing: AudioRingBuffer
    let renderRing: AudioRingBuffer

    // Buffers (allocated once)
    /// Room for the longest frame (60 ms at 48 kHz); ``frame`` is the current ptime's part of it.
    let frameStorage: UnsafeMutableBufferPointer<Int16>
    let decoded: UnsafeMutableBufferPointer<Int16>  // up to 120 ms of 48 kHz output
    let sendBuffer: UnsafeMutableRawBufferPointer
    let receiveBuffer: UnsafeMutableRawBufferPointer
    let playoutPayload: UnsafeMutableRawBufferPointer

    // Send state
    var frameSamples48k: Int
    var frameRTPUnits: Int
    var rtpClockRate: Int
    var sequenceNumber = UInt16.random(in: 0...UInt16.max)
    var rtpTimestamp = UInt32.random(in: 0...UInt32.max)
    var packetsSent: UInt64 = 0
    var octetsSent: UInt64 = 0
    var markerNext = true
    var lastSendTime: MediaTime?

    // Receive state
    var packetsReceived: UInt64 = 0
    var octetsReceived: UInt64 = 0
    var remoteSSRC: UInt32 = 0
    var lastPacketArrival: MediaTime?
    var srtpAuthFailures: UInt64 = 0
    var srtpReplayFailures: UInt64 = 0
    var malformedPackets: UInt64 = 0
    /// Which SSRC is played: forged or stale packets from others are counted, not played.
    var sourceGate = RTPSourceGate()
    var foreignSourcePackets: UInt64 = 0
    /// The sender of the datagram being handled (filled in place by each receive).
    var packetSource = SocketAddress.unspecified
    /// Times media followed authenticated packets to a new source address (symmetric RTP).
    var remoteAddressSwitches: UInt64 = 0
    /// The renegotiation last adopted.
    var renegotiationVersion = 0
    var renegotiations: UInt64 = 0
    var inputLevel = 0
    var outputLevel = 0
    var lastTelephoneEventTimestamp: UInt32?
    var dtmf = DTMFState()

    // Playout
    var renderDeviceActive = false
    var captureDeviceActive = false
    var nextVirtualPlayout: MediaTime?
    var nextVirtualCapture: MediaTime?
    /// The device interruption as the send and playout paths last saw it.
    var captureSawInterruption = false
    var playoutSawInterruption = false
    /// Each direction of the device, watched for stalls.
    var captureWatch = DeviceActivityWatch()
    var renderWatch = DeviceActivityWatch()
    var captureSawStall = false
    var playoutSawStall = false

    // RTCP and adaptation
    var rtcp: RTCPState
    var remote: RemoteEndpoints?
    var remoteVersion = -1
    var nextStatsPublish = MediaTime.zero
    var fecEnabled = false
    var lossHint = 0
    var sendBitrate = 0
    var fecPacketsSent: UInt64 = 0
    /// The FEC policy, for an Opus stream with adaptive FEC whose peer takes FEC.
    var lossAdaptation: OpusLossAdaptation?
    var startTime: MediaTime?

    init(configuration c: AudioStreamConfiguration, control: StreamControl) throws(AudioStreamError) {
        configuration = c
        self.control = control
        do {
            rtpSocket = try UDPSocket(bindTo: c.localAddress)
            if c.rtcpMux {
                rtcpSocket = nil
            } else {
                var next = c.localAddress
                next = try SocketAddress(host: c.localAddress.host, port: rtpSocket.localAddress.port + 1)
                rtcpSocket = try UDPSocket(bindTo: next)
            }
            if c.enableDSCP {
                try rtpSocket.setDSCP(46)
                try rtcpSocket?.setDSCP(46)
            }
        } catch let e as SocketError {
            throw .socket(e)
        } catch {
            throw .invalidConfiguration("local address \(c.localAddress): \(error)")
        }
        let sockets = [rtpSocket] + (rtcpSocket.map { [$0] } ?? [])
        control.sockets.withLock { $0 = sockets }
        do throws(MediaCodecError) {
            encoder = try c.codec.makeEncoder(ptime: c.ptime)
            decoder = try c.codec.makeDecoder()
        } catch {
            throw .codec(error)
        }
        switch c.encryption {
        case .srtp(let local, let remote):
            do throws(SRTPError) { srtpSend = try SRTPSession(outbound: local, inbound: remote) } catch { throw .srtp(error) }
            srtpReceive = srtpSend
        case .unencrypted:
            srtpSend = nil
            srtpReceive = nil
        }
        rtpClockRate = c.codec.rtpClockRate
        receiverStats = RTPReceiverStatistics(clockRate: c.codec.rtpClockRate)
        frameSamples48k = 48 * c.ptime
        frameRTPUnits = rtpClockRate / 1000 * c.ptime
        jitterBuffer = Self.makeJitterBuffer(for: c)
        // 85 ms each: a 60 ms frame plus a device period and slack; overflow is counted, never grown.
        captureRing = AudioRingBuffer(minimumCapacity: 4_096)
        renderRing = AudioRingBuffer(minimumCapacity: 4_096)
        frameStorage = .allocate(capacity: 48 * 60)
        frameStorage.initialize(repeating: 0)
        decoded = .allocate(capacity: 48 * 120)
        decoded.initialize(repeating: 0)
        let packetCapacity = 1500 + 256
        sendBuffer = .allocate(byteCount: packetCapacity, alignment: 16)
        receiveBuffer = .allocate(byteCount: packetCapacity, alignment: 16)
        playoutPayload = .allocate(byteCount: packetCapacity, alignment: 16)
        rtcp = RTCPState(interval: c.rtcpInterval)
        lossAdaptation = Self.makeLossAdaptation(for: c)
        adoptCodecSettings()
    }

    deinit {
        frameStorage.deallocate()
        decoded.deallocate()
        sendBuffer.deallocate()
        receiveBuffer.deallocate()
        playoutPayload.deallocate()
    }

    /// One ptime of 48 kHz capture: the current part of ``frameStorage`` (no allocation).
    var frame: UnsafeMutableBufferPointer<Int16> { UnsafeMutableBufferPointer(rebasing: frameStorage[0..<frameSamples48k]) }

    /// A jitter buffer for the codec and ptime of `c`.
    static func makeJitterBuffer(for c: AudioStreamConfiguration) -> JitterBuffer {
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
    func adoptCodecSettings() {
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

    /// 48 kHz samples to keep queued ahead of a render device of format `f`.
    static func renderTarget(for f: AudioFormat) -> Int { 2 * f.framesPerBuffer * 48_000 / f.sampleRate + 240 }

    /// Adjusts buffering to the device's period.
    func adopt(captureFormat: AudioFormat?, renderFormat: AudioFormat?) throws(AudioStreamError) {
        if let f = renderFormat {
            guard f.channels == 1 || f.channels == 2, f.sampleRate >= 8_000 else {
                throw .invalidConfiguration("render format \(f)")
            }
            // Keep two device periods plus one engine tick buffered ahead of the device: the
            // device may read at any phase of the tick, and a tick may start late on a busy machine.
            control.renderTarget.store(Self.renderTarget(for: f), ordering: .relaxed)
        }
        if let f = captureFormat {
            guard f.channels == 1 || f.channels == 2, f.sampleRate >= 8_000 else {
                throw .invalidConfiguration("capture format \(f)")
            }
        }
    }

    var descriptors: [Int32] { [rtpSocket.fd] + (rtcpSocket.map { [$0.fd] } ?? []) }

    func playoutTick(now: MediaTime) {
        playOut(now: now)
    }

    func tick(now: MediaTime) {
        // After the BYE the stream is leaving: nothing more is sent, so the final stats are exact.
        if rtcp.byeSent { return }
        if startTime == nil {
            startTime = now
            rtcp.start(at: now)
        }
        let renegotiated = control.renegotiationVersion.load(ordering: .acquiring)
        if renegotiated != renegotiationVersion,
            let pending = control.renegotiation.withLockIfAvailable({ slot -> StreamRenegotiation? in
                defer { slot = nil }
                return slot
            })
        {
            renegotiationVersion = renegotiated
            if let pending { adopt(pending) }
        }
        let version = control.remoteVersion.load(ordering: .acquiring)
        if version != remoteVersion, let r = control.remote.withLockIfAvailable({ $0 }) {
            // A new peer address (a transfer, a re-INVITE to another party) may send from a
            // new SSRC at once: it proves itself like the first source of the call.
            if let old = remote, let new = r, new.rtp != old.rtp { sourceGate.reset() }
            remote = r
            remoteVersion = version
        }
        sendCaptured(now: now)
        if control.byeRequested.load(ordering: .acquiring) {
            if !rtcp.byeSent {
                sendRTCP(now: now, bye: true)
                rtcp.byeSent = true
                publishStats(now: now, final: true)
                control.signalByeSent()
            }
        } else if now >= rtcp.nextReport {
            sendRTCP(now: now, bye: false)
        }
        if now >= nextStatsPublish {
            publishStats(now: now, final: false)
            nextStatsPublish = now + .milliseconds(200)
        }
    }

    func readable(descriptorIndex: Int, now: MediaTime, wallToMonotonic: Int64) -> Bool {
        let socket = descriptorIndex == 0 ? rtpSocket : (rtcpSocket ?? rtpSocket)
        var stamp: timespec?
        guard let n = socket.receive(into: receiveBuffer, arrival: &stamp, source: &packetSource) else { return false }
        var arrival = now
        if let stamp {
            let stamped = MediaTime(nanoseconds: Int64(stamp.tv_sec) * 1_000_000_000 + Int64(stamp.tv_nsec) + wallToMonotonic)
            if stamped <= now { arrival = stamped }
        }
        if descriptorIndex == 1 || RTPPacketView.isRTCP(UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<n])) {
            receiveRTCP(length: n, now: arrival)
        } else {
            receiveRTP(length: n, now: arrival)
        }
        return true
    }
}
