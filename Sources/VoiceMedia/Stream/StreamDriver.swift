import Synchronization
import VoiceAddress
import VoiceDTLS
import VoiceMediaPath
import VoiceRTP
import VoiceSupport

/// The real-time side of an ``AudioStream``: a thin driver that runs the stream's logic, an
/// ``RTPStream`` value, on a ``MediaEngine`` worker. It feeds the stream its events (datagrams
/// from the transports, frames from the capture ring, the engine's ticks, what the
/// controlling threads posted in ``StreamControl``) and carries out its actions (datagrams to
/// the transports, frames to the render ring, figures to the snapshot). What it decides itself
/// is the device's pacing: when a device is missing, interrupted or stalled, frames are sent
/// and played out on the engine clock instead.
///
/// After it is attached to an engine, only that engine's thread touches it.
final class StreamDriver: MediaTask {
    var stream: RTPStream
    let control: StreamControl
    /// The RTP transport, then the RTCP one when rtcp-mux is off, then the TCP connection to
    /// the TURN server when the relay is reached over TCP.
    let transports: [any MediaTransport]
    /// Where RTCP goes when it has a port of its own (no rtcp-mux).
    let rtcpTransportIndex: Int?
    /// Where traffic for the TURN server goes: its TCP connection, or the RTP socket.
    let relayTransportIndex: Int
    let captureRing: AudioRingBuffer
    let renderRing: AudioRingBuffer
    /// Frames a conference bridge encoded once for many streams, in order with the capture ring.
    let encodedRing = EncodedFrameRing()
    /// Where what is sent and played is recorded (nil: nowhere), and its version.
    var recordingTap: RecordingTap?
    var recordingVersion = 0
    /// The encoding last published in ``StreamControl/sharedEncoding``.
    var publishedEncoding: SharedEncodingKey?
    /// The datagram being handled (filled in place by each receive), and its sender.
    let receiveBuffer: UnsafeMutableRawBufferPointer
    var packetSource = SocketAddress.unspecified
    /// One capture frame read from the ring (60 ms at most).
    let captureFrame: UnsafeMutableBufferPointer<Int16>
    /// An outgoing datagram with its 4-byte ChannelData header and padding, when media goes
    /// through a TURN relay (made once: nothing is allocated per packet).
    let relayBuffer: UnsafeMutableRawBufferPointer
    /// Datagrams that were neither RTP nor RTCP (STUN, DTLS: nothing here handles them yet).
    var unhandledDatagrams: UInt64 = 0
    /// The renegotiation and remote address last taken from ``control``.
    var renegotiationVersion = 0
    var remoteVersion = -1
    /// What the driver needs of the stream's settings on every tick, kept here: reading a
    /// property of the stream (a value in another module) through this class would copy it.
    var frameSamples: Int
    var ptime: Int
    /// Whether the stream is leaving: running, its BYE sent and its final figures owed to the
    /// controlling thread that waits for them, or gone quiet.
    enum Leaving {
        case running
        case finalStatsOwed(AudioStreamStats)
        case left
    }
    var leaving = Leaving.running
    /// ICE, the TURN relay and DTLS-SRTP's place on the stream's port (WebRTC media), with the
    /// DTLS association it keys with; nil for SDES or plain RTP. See ``adopt(path:dtls:)``.
    var path: MediaPath?
    var dtls: DTLSAssociation?
    /// What of the stream's RTP and RTCP may pass: the path's ``MediaPath/gate`` as of its
    /// last event (read per packet, so kept here); always open without a path.
    var mediaGate = MediaGate.open
    /// The TURN server, and the channels it bound with each peer's address: the per-packet
    /// lookups of relayed media.
    var relayServer: SocketAddress?
    var relayChannels: [(number: UInt16, peer: SocketAddress)] = []
    /// The local address media goes from (the selected ICE pair's base, for a socket bound to
    /// the wildcard); nil lets the kernel choose.
    var mediaSource: SocketAddress?
    var iceRestartVersion = 0
    var resolvedCandidatesVersion = 0
    var localAddressesVersion = 0
    var relayReallocationVersion = 0

    /// Who paces each direction: the device, or the engine clock in its stead.
    var capturePacing = AudioDirectionPacing(hasDevice: false)
    var playoutPacing = AudioDirectionPacing(hasDevice: false)

    init(stream: RTPStream, transports: [any MediaTransport], control: StreamControl, relayTransportIndex: Int? = nil) {
        precondition(!transports.isEmpty, "a stream needs a transport")
        self.stream = stream
        self.transports = transports
        let mediaTransports = relayTransportIndex ?? transports.count
        rtcpTransportIndex = mediaTransports > 1 ? 1 : nil
        self.relayTransportIndex = relayTransportIndex ?? 0
        self.control = control
        frameSamples = stream.samplesPerFrame
        ptime = stream.configuration.ptime
        // 85 ms each: a 60 ms frame plus a device period and slack; overflow is counted, never grown.
        captureRing = AudioRingBuffer(minimumCapacity: 4_096)
        renderRing = AudioRingBuffer(minimumCapacity: 4_096)
        receiveBuffer = .allocate(byteCount: RTPStream.packetCapacity, alignment: 16)
        captureFrame = .allocate(capacity: 48 * 60)
        captureFrame.initialize(repeating: 0)
        relayBuffer = .allocate(byteCount: RTPStream.packetCapacity + 8, alignment: 16)
    }

    deinit {
        receiveBuffer.deallocate()
        captureFrame.deallocate()
        relayBuffer.deallocate()
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

    // MARK: - MediaTask

    /// While ICE checks or the DTLS handshake run, datagrams are handled as they arrive.
    var wantsPromptReceive: Bool { path?.isSettingUp ?? false }

    /// The first checks (or the first DTLS flight) leave as soon as the worker has the stream.
    func attached(now: MediaTime) {
        takeControlChanges(now: now)
        drivePath(now: now) { $0.start(now: now) }
    }

    func playoutTick(now: MediaTime, pass: PlayoutPass) {
        if pass == .urgent, !isRunningDry { return }
        playOut(now: now)
    }

    /// Whether the render device has less than half the usual lead left (it plays from the
    /// ring; without a device, or off it, nothing runs dry).
    private var isRunningDry: Bool {
        playoutPacing.hasDevice && renderRing.availableToRead < control.renderTarget.load(ordering: .relaxed) / 2
    }

    func tick(now: MediaTime) {
        // After the BYE the stream is leaving: nothing more is sent, so the final stats are exact.
        switch leaving {
        case .running: break
        case .finalStatsOwed(let stats): return publishFinal(stats)
        case .left: return
        }
        takeControlChanges(now: now)
        if path != nil { tickPath(now: now) }
        var output = Output(driver: self)
        sendCaptured(now: now, output: &output)
        publishEncoding()
        if control.byeRequested.load(ordering: .acquiring) {
            stream.sendBye(at: now, output: &output)
            if path != nil { closePath(now: now) }
            publishFinal(statistics(at: now))
        } else {
            stream.tick(at: now, output: &output)
        }
    }

    func receive(from transportIndex: Int, now: MediaTime, wallClockOffset: Int64) -> Bool {
        guard
            let datagram = transports[transportIndex].receive(into: receiveBuffer, from: &packetSource, wallClockOffset: wallClockOffset)
        else { return false }
        // A kernel stamp ahead of the tick would be a clock step: the tick's time stands in.
        let arrival = datagram.arrival.map { $0 <= now ? $0 : now } ?? now
        var length = datagram.length
        var viaRelay = false
        if relayServer != nil, MediaDatagramKind(UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<length])) == .turnChannel {
            // ChannelData from our TURN server: the peer's datagram, unwrapped in place.
            guard let unwrapped = unwrapChannelData(length: length) else {
                unhandledDatagrams += 1
                return true
            }
            length = unwrapped
            viaRelay = true
        }
        let bytes = UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<length])
        switch MediaDatagramKind(bytes) {
        case .rtpOrRTCP:
            guard mediaGate.receives else {
                path?.countDroppedBeforeKeys()
                return true
            }
            path?.countReceived(length)
            stream.wallClockOffset = wallClockOffset
            var output = Output(driver: self)
            stream.receive(receiveBuffer, length: length, from: packetSource, at: arrival, output: &output)
            if let level = stream.takeReceivedAudioLevel() { control.receivedAudioLevel.publish(level) }
        case .stun where path != nil:
            guard let source = TransportAddress(packetSource) else {
                unhandledDatagrams += 1
                return true
            }
            if viaRelay {
                drivePath(now: now) { $0.receiveRelayedSTUN(Array(bytes), from: source, now: arrival) }
            } else {
                let local = datagram.destination.flatMap(TransportAddress.init)
                drivePath(now: now) { $0.receiveSTUN(Array(bytes), from: source, to: local, now: arrival) }
            }
            // What the answer makes due (a nomination, the first DTLS flight) goes now, not at the next tick.
            drivePath(now: now) { $0.tick(now: now) }
        case .dtls where path != nil:
            guard let source = TransportAddress(packetSource) else {
                unhandledDatagrams += 1
                return true
            }
            drivePath(now: now) { $0.receiveDTLS(Array(bytes), from: source, viaRelay: viaRelay, now: arrival) }
        default:
            unhandledDatagrams += 1
        }
        return true
    }

    /// Unwraps the ChannelData (RFC 8656 §12.4) in ``receiveBuffer``: checks it came from the
    /// TURN server on a bound channel, moves the data to the front, and makes the peer its
    /// source. Returns the data's length; nil for anything else.
    private func unwrapChannelData(length: Int) -> Int? {
        guard length >= 4, packetSource == relayServer else { return nil }
        let channel = UInt16(receiveBuffer[0]) << 8 | UInt16(receiveBuffer[1])
        let dataLength = Int(receiveBuffer[2]) << 8 | Int(receiveBuffer[3])
        guard dataLength <= length - 4, let peer = relayPeer(onChannel: channel), let base = receiveBuffer.baseAddress else { return nil }
        base.copyMemory(from: base + 4, byteCount: dataLength)
        packetSource = peer
        return dataLength
    }

    /// Sends `datagram` to `peer` through the TURN server: as ChannelData built in
    /// ``relayBuffer`` once the peer's channel is bound, else (briefly, at the start) as a
    /// Send indication.
    func sendRelayed(_ datagram: UnsafeRawBufferPointer, to peer: SocketAddress) -> Bool {
        guard let server = relayServer else { return false }
        guard let channel = relayChannel(for: peer) else {
            guard let to = TransportAddress(peer), let wrapped = path?.wrapForRelay(Array(datagram), to: to) else { return false }
            return wrapped.withUnsafeBytes { transports[relayTransportIndex].send($0, to: server) }
        }
        guard datagram.count <= relayBuffer.count - 8, let base = relayBuffer.baseAddress else { return false }
        relayBuffer[0] = UInt8(channel >> 8)
        relayBuffer[1] = UInt8(channel & 0xFF)
        relayBuffer[2] = UInt8(datagram.count >> 8)
        relayBuffer[3] = UInt8(datagram.count & 0xFF)
        if let source = datagram.baseAddress { (base + 4).copyMemory(from: source, byteCount: datagram.count) }
        // Padded to four bytes: the same framing works over a stream to the server.
        var total = 4 + datagram.count
        while total % 4 != 0 {
            relayBuffer[total] = 0
            total += 1
        }
        return transports[relayTransportIndex].send(UnsafeRawBufferPointer(rebasing: relayBuffer[0..<total]), to: server)
    }

    /// Takes what the controlling threads posted, without waiting for their locks: a
    /// renegotiation, a new remote address, digits, and the switches.
    private func takeControlChanges(now: MediaTime) {
        let renegotiated = control.renegotiationVersion.load(ordering: .acquiring)
        if renegotiated != renegotiationVersion,
            let pending = control.renegotiation.withLockIfAvailable({ slot -> StreamControl.PendingChange? in
                defer { slot = nil }
                return slot
            })
        {
            renegotiationVersion = renegotiated
            if let pending {
                if pending.change.codec != nil { capturePacing.restartClock(at: now) }
                stream.adopt(pending.change)
                frameSamples = stream.samplesPerFrame
                ptime = stream.configuration.ptime
            }
        }
        let version = control.remoteVersion.load(ordering: .acquiring)
        if version != remoteVersion, let r = control.remote.withLockIfAvailable({ $0 }) {
            // With ICE the path is the agent's: a signaled address is only a candidate.
            if path?.usesICE != true { stream.setRemote(r) }
            remoteVersion = version
        }
        if control.pendingDigits.load(ordering: .relaxed) > 0,
            let taken = control.digits.withLockIfAvailable({ q -> [Character] in
                let t = q
                q.removeAll()
                return t
            })
        {
            control.pendingDigits.store(0, ordering: .relaxed)
            stream.sendDigits(taken)
        }
        let recording = control.recordingVersion.load(ordering: .acquiring)
        if recording != recordingVersion, let tap = control.recording.withLockIfAvailable({ $0 }) {
            recordingTap = tap
            recordingVersion = recording
        }
        stream.isMuted = control.muted.load(ordering: .relaxed)
        stream.isOnHold = control.onHold.load(ordering: .relaxed)
        // ICE and DTLS own the path: no latching onto whatever sends authenticated media.
        stream.followsPeerAddress = path == nil && control.symmetricRTP.load(ordering: .relaxed)
        let decoding = control.receivedAudioDecoding.load(ordering: .relaxed)
        if decoding != stream.receivedAudioDecoding.code { stream.receivedAudioDecoding = ReceivedAudioDecoding(code: decoding) }
    }

    /// Publishes the stream's encoding when it changed (a renegotiation, the loss adaptation),
    /// for a bridge that encodes once for many streams. A reader holding the lock is not waited
    /// for: the next tick publishes.
    private func publishEncoding() {
        let key = stream.sharedEncodingKey
        guard key != publishedEncoding, control.sharedEncoding.withLockIfAvailable({ $0 = key }) != nil else { return }
        publishedEncoding = key
        control.sharedEncodingVersion.add(1, ordering: .releasing)
    }

    /// Publishes the figures as the BYE left, for the controlling thread waiting in `stop()`. A
    /// reader holding the snapshot's lock (to copy it) is not waited for: the next tick tries again.
    private func publishFinal(_ stats: AudioStreamStats) {
        guard control.snapshot.withLockIfAvailable({ $0 = stats }) != nil else {
            leaving = .finalStatsOwed(stats)
            return
        }
        leaving = .left
        control.signalByeSent()
    }

    /// The stream's figures with the device's.
    func statistics(at now: MediaTime) -> AudioStreamStats {
        var s = stream.statistics(at: now)
        addDeviceFigures(to: &s)
        return s
    }

    /// Adds the device's figures (and the datagrams nothing handled) to the stream's.
    func addDeviceFigures(to s: inout AudioStreamStats) {
        s.captureOverflows = control.captureOverflows.load(ordering: .relaxed)
        s.renderUnderruns = control.renderUnderruns.load(ordering: .relaxed)
        s.captureXruns = control.captureXruns.load(ordering: .relaxed)
        s.renderXruns = control.renderXruns.load(ordering: .relaxed)
        s.deviceSuspends = control.deviceSuspends.load(ordering: .relaxed)
        s.deviceInterruptions = control.deviceInterruptions.load(ordering: .relaxed)
        s.isAudioInterrupted = control.isInterrupted
        s.captureStalls = capturePacing.watch.stalls
        s.renderStalls = playoutPacing.watch.stalls
        s.unhandledDatagrams = unhandledDatagrams
        s.eventsLost = control.events.lostCount
        path?.figures.add(to: &s)
    }

    /// Carries out the stream's actions: datagrams to the transports, frames to the render ring
    /// (or nowhere, when playout runs on the engine clock), figures to the snapshot, events to
    /// the controlling side.
    struct Output: RTPStreamOutput {
        let driver: StreamDriver
        /// Whether played frames go to the render ring.
        var playsToDevice = false

        mutating func perform(_ action: RTPStreamAction) -> Bool {
            switch action {
            case .send(let datagram, let destination, let component):
                // WebRTC media: nothing before the DTLS keys, nothing while consent is lost (and
                // nothing counted as sent).
                switch driver.mediaGate {
                case .open: break
                case .openViaRelay:
                    guard driver.sendRelayed(datagram, to: destination) else { return false }
                    driver.path?.countSent(datagram.count)
                    return true
                case .shut, .receiveOnly: return false
                }
                let transports = driver.transports
                let transport = component == .rtcp ? transports[driver.rtcpTransportIndex ?? 0] : transports[0]
                guard transport.send(datagram, to: destination, from: driver.mediaSource) else { return false }
                driver.path?.countSent(datagram.count)
                return true
            case .play(let samples):
                if playsToDevice { driver.renderRing.write(samples) }
                driver.recordingTap?.recordReceived(samples)
            case .publish(let stats):
                var s = stats
                driver.addDeviceFigures(to: &s)
                // Skipped if a reader holds the lock right now: the next one comes in 200 ms.
                _ = driver.control.snapshot.withLockIfAvailable { $0 = s }
            case .report(let event):
                switch event {
                case .remoteBye: driver.control.emit(.remoteBye)
                case .telephoneEvent(let code, let duration): driver.control.emit(.telephoneEvent(code: code, duration: duration))
                }
            }
            return true
        }
    }

}
