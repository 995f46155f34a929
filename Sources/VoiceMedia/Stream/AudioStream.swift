import VoiceAddress
import Synchronization
import VoiceDTLS
import VoiceICE
import VoiceMediaPath
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

/// One bidirectional audio stream over UDP: capture → encode → RTP → SRTP → send, and
/// receive → SRTP → jitter buffer → decode → render, with RTCP alongside.
///
/// Threading: create, start, stop and control it from any thread. The real-time work runs on a
/// ``MediaEngine`` worker and never waits on locks taken here: controls are atomics, and the
/// stats snapshot is published with a try-lock.
package final class AudioStream: Sendable {
    /// The configuration in force: the one the stream was created with, as changed by
    /// ``renegotiate(codec:payloadType:ptime:telephoneEventPayloadType:encryption:)``.
    package var configuration: AudioStreamConfiguration { current.withLock { $0 } }
    private let current: Locked<AudioStreamConfiguration>
    /// Where the stream receives RTP (and RTCP with rtcp-mux).
    package let localAddress: SocketAddress
    /// Where the stream receives RTCP when rtcp-mux is off.
    package let localRTCPAddress: SocketAddress?

    let control: StreamControl
    private let driver: Locked<StreamDriverBox?>
    private let engine: MediaEngine
    private let running = Locked<RunningState?>(nil)

    struct RunningState: @unchecked Sendable {  // only used under `running`'s lock
        let handle: MediaTaskHandle
        let device: (any AudioDevice)?
        let context: StreamDeviceContext
    }

    /// Sets up the transports, codec and SRTP; nothing is sent until ``start(remote:remoteRTCP:audioDevice:onEvent:)``.
    /// - Parameters:
    ///   - transport: the RTP transport to use, already bound (a port reserved while the SDP
    ///     was written); nil binds one at the configuration's local address on the engine's
    ///     transports. The stream closes it when it stops.
    ///   - rtcpTransport: without rtcp-mux, the RTCP transport to use (reserved with the RTP
    ///     one); nil binds one on the next port. With rtcp-mux it is closed at once.
    ///   - path: for ``MediaEncryption/dtlsSRTP``, the ICE and DTLS setup of the WebRTC media
    ///     path (required then; ignored otherwise).
    package init(
        configuration: AudioStreamConfiguration, engine: MediaEngine = .shared, transport: (any MediaTransport)? = nil,
        rtcpTransport: (any MediaTransport)? = nil, path: MediaPathSetup? = nil
    ) throws(AudioStreamError) {
        var path = path
        if case .dtlsSRTP = configuration.encryption {
            guard path != nil else { throw .invalidConfiguration("DTLS-SRTP needs the ICE and DTLS setup of the media path") }
            guard configuration.rtcpMux else { throw .invalidConfiguration("DTLS-SRTP media needs rtcp-mux") }
        } else {
            path = nil
        }
        guard [10, 20, 40, 60].contains(configuration.ptime) else {
            throw .invalidConfiguration("ptime \(configuration.ptime) ms (10, 20, 40 or 60)")
        }
        guard configuration.payloadType <= 127, (configuration.telephoneEventPayloadType ?? 0) <= 127 else {
            throw .invalidConfiguration("RTP payload types are 0…127")
        }
        guard configuration.telephoneEventPayloadType != configuration.payloadType else {
            throw .invalidConfiguration("telephone-event and the codec need different payload types")
        }
        if let red = configuration.redPayloadType {
            guard red <= 127, red != configuration.payloadType, red != configuration.telephoneEventPayloadType else {
                throw .invalidConfiguration("RED needs a payload type of its own, 0…127")
            }
        }
        self.current = Locked(configuration)
        self.engine = engine
        let control = StreamControl(events: StreamEvents(delivery: engine.eventDelivery))
        control.symmetricRTP.store(configuration.symmetricRTP, ordering: .relaxed)
        self.control = control
        var transports = try Self.transports(for: configuration, given: transport, rtcp: rtcpTransport, engine: engine)
        let mediaTransports = transports.count
        // A TURN relay over TCP or TLS: its connection is one more transport of the stream.
        if let relay = path?.relay, let connection = relay.connection?.take(as: TURNStreamConnection.self) {
            transports.append(TURNStreamTransport(connection, server: SocketAddress(relay.server)))
        }
        control.transports.withLock { $0 = transports }
        let stream: RTPStream
        do {
            stream = try Self.makeStream(configuration)
        } catch {
            control.closeTransports()
            throw error
        }
        self.localAddress = transports[0].localAddress
        self.localRTCPAddress = mediaTransports > 1 ? transports[1].localAddress : nil
        self.driver = Locked(
            StreamDriverBox(
                driver: StreamDriver(
                    stream: stream, transports: transports, control: control,
                    relayTransportIndex: transports.count > mediaTransports ? mediaTransports : nil)))
        self.pathSetup = path
    }

    private let pathSetup: MediaPathSetup?

    /// The RTP transport (given, or bound on the engine's transports) and, without rtcp-mux,
    /// the RTCP one on the next port; DSCP marked when asked.
    private static func transports(
        for c: AudioStreamConfiguration, given: (any MediaTransport)?, rtcp givenRTCP: (any MediaTransport)?, engine: MediaEngine
    ) throws(AudioStreamError) -> [any MediaTransport] {
        var bound: [any MediaTransport] = []
        do throws(SocketError) {
            let rtp: any MediaTransport
            if let given { rtp = given } else { rtp = try engine.transports.bind(c.localAddress) }
            bound.append(rtp)
            if let givenRTCP {
                if c.rtcpMux { givenRTCP.close() } else { bound.append(givenRTCP) }
            } else if !c.rtcpMux {
                let next: SocketAddress
                do {
                    next = try SocketAddress(host: rtp.localAddress.host, port: rtp.localAddress.port + 1)
                } catch {
                    throw SocketError(operation: "RTCP port after \(rtp.localAddress)", errno: 22)  // EINVAL
                }
                bound.append(try engine.transports.bind(next))
            }
            if c.enableDSCP {
                for transport in bound { try (transport as? UDPSocket)?.setDSCP(46) }
            }
        } catch {
            for transport in bound { transport.close() }
            throw .socket(error)
        }
        return bound
    }

    /// The stream's logic with its codec and SRTP session for `c`.
    private static func makeStream(_ c: AudioStreamConfiguration) throws(AudioStreamError) -> RTPStream {
        let encoder: any MediaEncoder
        let decoder: any MediaDecoder
        do throws(MediaCodecError) {
            encoder = try c.codec.makeEncoder(ptime: c.ptime)
            decoder = try c.codec.makeDecoder()
        } catch {
            throw .codec(error)
        }
        var protection: SRTPSession?
        if case .srtp(let local, let remote) = c.encryption {
            do throws(SRTPError) { protection = try SRTPSession(outbound: local, inbound: remote) } catch { throw .srtp(error) }
        }
        return RTPStream(configuration: c, encoder: encoder, decoder: decoder, protection: protection)
    }

    deinit { stop() }

    /// Starts sending to `remote` and playing what arrives, through `audioDevice` (nil: no audio I/O,
    /// the stream still runs on the engine clock).
    /// - Parameter onEvent: called for device failures, RTCP BYE, DTMF and the media path, in
    ///   order, on a serial queue of the stream's own (never the media thread: it may take locks);
    ///   inline within the tick on an embedded engine.
    package func start(
        remote: SocketAddress, remoteRTCP: SocketAddress? = nil, audioDevice: (any AudioDevice)?,
        onEvent: (@Sendable (AudioStreamEvent) -> Void)? = nil
    ) throws(AudioStreamError) {
        guard
            let box = driver.withLock({ b -> StreamDriverBox? in
                let x = b; b = nil; return x
            })
        else {
            throw .invalidState("a stream starts once")
        }
        let c = box.driver
        if let pathSetup {
            guard let path = MediaPath(setup: pathSetup, localAddress: localAddress, signaledRemote: remote) else {
                throw .invalidConfiguration("the media path needs IP addresses: \(localAddress), \(remote)")
            }
            do throws(DTLSError) {
                let dtls = try DTLSAssociation(
                    certificate: pathSetup.certificate, role: pathSetup.dtlsRole, remoteFingerprints: pathSetup.remoteFingerprints,
                    configuration: pathSetup.dtls)
                c.adopt(path: path, dtls: dtls)
            } catch {
                throw .invalidConfiguration("DTLS: \(error)")
            }
        }
        control.events.handler.withLock { $0 = onEvent }
        control.setRemote(rtp: remote, rtcp: remoteRTCP ?? (configuration.rtcpMux ? remote : nil))
        let context = StreamDeviceContext(capture: c.captureRing, render: c.renderRing, encoded: c.encodedRing, control: control)
        if let device = audioDevice {
            control.receivedAudioDecoding.store(
                ((device as? any DedicatedAudioDevice)?.receivedAudioDecoding ?? .always).code, ordering: .relaxed)
            try c.adopt(captureFormat: device.captureFormat, renderFormat: device.renderFormat)
            context.configure(captureFormat: device.captureFormat, renderFormat: device.renderFormat)
            c.playoutPacing = AudioDirectionPacing(hasDevice: device.renderFormat != nil)
            c.capturePacing = AudioDirectionPacing(hasDevice: device.captureFormat != nil)
        }
        let handle = engine.attach(c)
        do {
            if let device = audioDevice {
                if device.captureFormat != nil { try device.startCapturing(context: context) }
                if device.renderFormat != nil { try device.startRendering(context: context) }
            }
        } catch {
            audioDevice?.stopCapturing()
            audioDevice?.stopRendering()
            engine.detach(handle)
            throw .audioDevice(error)
        }
        running.withLock { $0 = RunningState(handle: handle, device: audioDevice, context: context) }
    }

    /// Stops the device, sends RTCP BYE, leaves the engine and closes the sockets. Idempotent.
    package func stop() {
        guard
            let state = running.withLock({ s -> RunningState? in
                let x = s; s = nil; return x
            })
        else { return }
        state.device?.stopCapturing()
        state.device?.stopRendering()
        control.byeRequested.store(true, ordering: .releasing)
        engine.runNow(state.handle)
        control.waitForBye()
        engine.detach(state.handle)
        control.closeTransports()
    }

    /// Moves the running stream to another device (the app switches a headset for the
    /// speakers, or away from an unplugged one): the old device stops, then the new one
    /// starts on the same rings, so the stream, its sockets and the peer see no change. A
    /// device whose direction the stream did not use, or cannot use, is refused.
    ///
    /// - Throws: ``AudioStreamError/invalidState(_:)`` when the stream is not running, or its
    ///   capture/render use differs from the new device's; ``AudioStreamError/audioDevice(_:)``
    ///   when the new device does not start (the old one is then started again).
    package func switchAudioDevice(to device: any AudioDevice) throws(AudioStreamError) {
        try running.withLock { state throws(AudioStreamError) in
            guard let current = state else { throw .invalidState("the stream is not running") }
            guard (device.captureFormat != nil) == (current.device?.captureFormat != nil),
                (device.renderFormat != nil) == (current.device?.renderFormat != nil)
            else { throw .invalidState("the new device must capture and render as the old one did") }
            for f in [device.captureFormat, device.renderFormat].compactMap({ $0 }) {
                guard f.channels == 1 || f.channels == 2, f.sampleRate >= 8_000 else {
                    throw .invalidConfiguration("device format \(f)")
                }
            }
            current.device?.stopCapturing()
            current.device?.stopRendering()
            let context = current.context.forAnotherDevice()
            do throws(AudioStreamError) {
                try start(device, context: context)
                state = RunningState(handle: current.handle, device: device, context: context)
            } catch {
                if let old = current.device { try? start(old, context: current.context.forAnotherDevice()) }
                throw error
            }
        }
    }

    /// Configures `context` for `device` and starts it; both directions stop again on failure.
    private func start(_ device: any AudioDevice, context: StreamDeviceContext) throws(AudioStreamError) {
        // A fresh device: what the old one reported no longer holds.
        control.interrupted.store(0, ordering: .releasing)
        context.configure(captureFormat: device.captureFormat, renderFormat: device.renderFormat)
        if let f = device.renderFormat { control.renderTarget.store(StreamDriver.renderTarget(for: f), ordering: .relaxed) }
        do {
            if device.captureFormat != nil { try device.startCapturing(context: context) }
            if device.renderFormat != nil { try device.startRendering(context: context) }
        } catch {
            device.stopCapturing()
            device.stopRendering()
            throw .audioDevice(error)
        }
    }

    /// Whether the device's capture and render are interrupted now.
    package var interruptedDirections: (capture: Bool, render: Bool) {
        let set = control.interrupted.load(ordering: .acquiring)
        return (set & StreamControl.interruptedBit(capture: true) != 0, set & StreamControl.interruptedBit(capture: false) != 0)
    }

    /// Restarts ICE on a WebRTC media path (a re-INVITE carried new credentials): the media
    /// thread takes it at its next tick. Nothing for other streams.
    package func restartICE(_ restart: MediaPath.ICERestart) {
        guard pathSetup != nil else { return }
        control.iceRestart.withLock { $0 = restart }
        control.iceRestartVersion.add(1, ordering: .releasing)
    }

    /// The peer's candidates that were `.local` names, resolved (maybe none), for the ICE agent
    /// running with the peer's `usernameFragment`: the media thread takes them at its next tick.
    /// Nothing for streams without a WebRTC media path.
    package func addRemoteCandidates(_ candidates: [ICECandidate], usernameFragment: String) {
        guard pathSetup != nil else { return }
        control.resolvedCandidates.withLock { $0.append((candidates, usernameFragment)) }
        control.resolvedCandidatesVersion.add(1, ordering: .releasing)
    }

    /// The host's usable addresses changed (the network monitor's word, before the move's
    /// re-INVITE): a connected WebRTC media path checks from new addresses at once and, when
    /// its own address is gone and it controls, moves to a new one with the peer
    /// (``MediaPath/localAddressesChanged(_:now:)``). The media thread takes the newest list at
    /// its next tick. Nothing for other streams.
    package func localAddressesChanged(_ addresses: [IPAddress]) {
        guard pathSetup != nil else { return }
        control.localAddresses.withLock { $0 = addresses }
        control.localAddressesVersion.add(1, ordering: .releasing)
    }

    /// Makes a new TURN allocation from the stream's socket, for an ICE restart after the host
    /// moved (the old allocation is tied to the old address): `completion` gets the new relayed
    /// candidates, one per family (on the stream's event queue, never the media thread), or
    /// none when the stream has no relay over UDP, the server gave none, or a later request
    /// superseded this one. The restart that offers them switches the stream to it.
    package func reallocateRelay(_ completion: @escaping @Sendable ([ICECandidate]) -> Void) {
        guard let relay = pathSetup?.relay, relay.connection == nil else {
            completion([])
            return
        }
        let request = control.relayReallocationVersion.load(ordering: .relaxed) + 1
        // A request still waiting is superseded: its caller hears nil now.
        let superseded = control.events.relayCompletion.withLock { slot in
            defer { slot = (request, completion) }
            return slot?.completion
        }
        superseded?([])
        control.relayReallocationVersion.store(request, ordering: .releasing)
    }

    /// Changes where media is sent (re-INVITE to a new address).
    package func updateRemote(_ remote: SocketAddress, rtcp: SocketAddress? = nil) {
        control.setRemote(rtp: remote, rtcp: rtcp ?? (configuration.rtcpMux ? remote : nil))
    }

    /// Applies a renegotiation (a re-INVITE's answer) to the running stream: a new codec, payload
    /// types, ptime or SRTP keys. The codec state and SRTP contexts are built here; the media
    /// thread switches to them at its next tick, so the audio goes on with no gap. Nothing that
    /// changes is a no-op.
    /// - Throws: ``AudioStreamError`` when the new codec or keys cannot be set up; the stream
    ///   then keeps running as it was.
    /// - Parameters:
    ///   - redPayloadType: RFC 2198 redundancy as the new answer has it (nil: no longer).
    ///   - peerBandwidthLimit: the peer's bandwidth for the stream as the new answer states it.
    package func renegotiate(
        codec: MediaCodec, payloadType: UInt8, ptime: Int, telephoneEventPayloadType: UInt8?, encryption: MediaEncryption,
        redPayloadType: UInt8? = nil, peerBandwidthLimit: Int? = nil
    ) throws(AudioStreamError) {
        try current.withLock { (configuration: inout AudioStreamConfiguration) throws(AudioStreamError) in
            var next = configuration
            next.redPayloadType = redPayloadType
            next.peerBandwidthLimit = peerBandwidthLimit
            next.codec = codec
            next.payloadType = payloadType
            next.ptime = ptime
            next.telephoneEventPayloadType = telephoneEventPayloadType
            next.encryption = encryption
            guard let change = try StreamRenegotiation.change(from: configuration, to: next) else { return }
            configuration = next
            control.post(change)
        }
    }

    /// Queues DTMF digits to send as RFC 4733 telephone-events: `0`–`9`, `*`, `#`, `A`–`D`, and
    /// `w` for a 500 ms pause. Each digit is a 100 ms event followed by a 60 ms gap; audio
    /// frames are replaced by event packets while an event plays.
    /// - Throws: ``AudioStreamError/invalidConfiguration(_:)`` for other characters or when no
    ///   telephone-event payload type was negotiated (the caller may fall back to SIP INFO).
    package func sendDigits(_ digits: String) throws(AudioStreamError) {
        guard configuration.telephoneEventPayloadType != nil else {
            throw .invalidConfiguration("telephone-event was not negotiated")
        }
        for c in digits where c != "w" && c != "W" && TelephoneEvent.dtmfEvent(for: c) == nil {
            throw .invalidConfiguration("not a DTMF digit: \(c)")
        }
        control.digits.withLock { $0.append(contentsOf: digits) }
        control.pendingDigits.add(digits.count, ordering: .relaxed)
    }

    /// Whether media follows the peer's authenticated packets to a new address (symmetric RTP);
    /// starts as the configuration says. When false, media goes only where signaling says.
    package var followsPeerAddress: Bool {
        get { control.symmetricRTP.load(ordering: .relaxed) }
        set { control.symmetricRTP.store(newValue, ordering: .relaxed) }
    }

    /// When true the stream keeps sending, but silent frames.
    package var isMuted: Bool {
        get { control.muted.load(ordering: .relaxed) }
        set { control.muted.store(newValue, ordering: .relaxed) }
    }

    /// When true the stream sends silence and plays nothing.
    package var isOnHold: Bool {
        get { control.onHold.load(ordering: .relaxed) }
        set { control.onHold.store(newValue, ordering: .relaxed) }
    }

    /// The DSCP value on the media socket (46 when EF marking is on), nil once closed.
    package var dscp: UInt8? { control.transports.withLock { ($0.first as? UDPSocket)?.dscp() } }

    /// The latest stats snapshot (a few times a second, and a final one when the stream stops).
    package var stats: AudioStreamStats { control.snapshot.withLock { $0 } }

    /// Records what the stream sends and plays into `tap` from its next tick (nil: stops).
    package func setRecording(_ tap: RecordingTap?) {
        control.recording.withLock { $0 = tap }
        control.recordingVersion.add(1, ordering: .releasing)
    }

    /// The RFC 6464 levels the peer announces in its packets (when negotiated): read any time.
    package var receivedAudioLevel: ReceivedAudioLevel { control.receivedAudioLevel }
}

/// Carries the driver across the init/start boundary.
struct StreamDriverBox: @unchecked Sendable {  // moved to the engine thread once, never shared
    let driver: StreamDriver
}
