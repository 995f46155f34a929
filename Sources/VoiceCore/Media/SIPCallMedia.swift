import VoiceICE
import VoiceDTLS
import VoiceMedia
import VoiceMediaPath
import VoiceRTP
import VoiceSupport
import VoiceSIP
import VoiceSIPAgent

/// Runs a call's audio: turns each negotiated SDP (initial answer, hold, resume, a peer that
/// moved) into the media engine's ``AudioStream``: created and started on the first
/// negotiation, then updated by later ones: remote address, direction, and codec, payload
/// types, ptime and SRTP keys, which the running stream switches to without a gap.
///
/// Direction mapping: when we may not send (`recvonly`, `inactive`) the stream is muted (sends
/// silence) but still plays what arrives (the peer's hold music); `sendonly` sends what we
/// capture (a peer that only listens hears us). Only the user's hold (``isOnHold``) silences
/// both ways. A change of rtcp-mux cannot be applied to a running
/// stream (it would need another socket); the stream keeps its first choice.
package final class SIPCallMedia: Sendable {
    private struct State {
        var stream: AudioStream?
        /// The remote RTP and RTCP addresses the last negotiation named.
        var signaledRemote: (rtp: SocketAddress, rtcp: SocketAddress)?
        var direction: SDPDirection = .sendrecv
        var userMuted = false
        var userHeld = false
        var stopped = false
        /// The device the stream runs on, or will start on.
        var audioDevice: (any AudioDevice)?
        /// Both sides' ICE credentials the stream runs with (DTLS-SRTP calls).
        var iceCredentials: [String]?
    }

    /// The local address RTP is bound to (the SDP's `c=` address) and port.
    package let localHost: String
    /// The local RTP port the SDP announced.
    package let localPort: UInt16
    private let engine: MediaEngine
    private let enableDSCP: Bool
    /// The sockets reserved on ``localPort`` while the SDP was written, taken over by the stream.
    private let reserved: ReservedMediaPort?
    private let onEvent: (@Sendable (AudioStreamEvent) -> Void)?
    private let state = Locked(State())
    /// Our ICE parameters as our SDP carried them, and the certificate DTLS presents.
    private let localICE: SDPICEParameters?
    private let certificate: DTLSCertificate?
    /// The TURN relay allocated for ``localPort``, for the stream's ICE agent.
    private let relay: TURNRelay?
    /// When the stream sends RFC 2198 redundancy, if negotiated (adaptive unless a test fixes it).
    private let redSending: REDSendPolicy.Mode
    /// Who resolves the peer's mDNS `.local` candidates (nil: ``MulticastDNSResolver/shared``,
    /// made at the first such candidate).
    private let multicastDNS: MulticastDNSResolver?

    /// Creates the media side of a call; nothing runs until the first ``apply(_:)``.
    /// - Parameter reserved: the sockets bound on `localPort` (and the next port) while the SDP
    ///   was written; the stream takes them over. Nil: the stream binds `localHost:localPort`.
    package init(
        localHost: String, localPort: UInt16, reserved: ReservedMediaPort? = nil, audioDevice: (any AudioDevice)?,
        engine: MediaEngine = .shared, enableDSCP: Bool = false, localICE: SDPICEParameters? = nil, certificate: DTLSCertificate? = nil,
        relay: TURNRelay? = nil, redSending: REDSendPolicy.Mode = .adaptive, multicastDNS: MulticastDNSResolver? = nil,
        onEvent: (@Sendable (AudioStreamEvent) -> Void)? = nil
    ) {
        self.multicastDNS = multicastDNS
        self.relay = relay
        self.redSending = redSending
        self.localICE = localICE
        self.certificate = certificate
        self.localHost = localHost
        self.localPort = localPort
        self.reserved = reserved
        self.engine = engine
        self.enableDSCP = enableDSCP
        self.onEvent = onEvent
        state.withLock { $0.audioDevice = audioDevice }
    }

    deinit { stop() }

    /// Applies a negotiation result: starts the stream the first time, later updates it.
    package func apply(_ media: SDPNegotiatedMedia) throws(AudioStreamError) {
        let remote: SocketAddress
        let remoteRTCP: SocketAddress
        do {
            remote = try SocketAddress(host: media.remoteRTP.host, port: Int(media.remoteRTP.port))
            remoteRTCP = try SocketAddress(host: media.remoteRTCP.host, port: Int(media.remoteRTCP.port))
        } catch {
            throw .invalidConfiguration("remote media address \(media.remoteRTP): \(error)")
        }
        let (existing, moved, iceRestarted) = state.withLock { s -> (AudioStream?, Bool, Bool) in
            s.direction = media.direction
            let moved = s.signaledRemote.map { $0.rtp != remote || $0.rtcp != remoteRTCP } ?? true
            s.signaledRemote = (remote, remoteRTCP)
            let restarted = s.stream != nil && media.iceCredentials != nil && media.iceCredentials != s.iceCredentials
            s.iceCredentials = media.iceCredentials ?? s.iceCredentials
            return (s.stream, moved, restarted)
        }
        if let existing {
            try existing.renegotiate(
                codec: media.codec, payloadType: media.payloadType, ptime: media.ptime,
                telephoneEventPayloadType: media.telephoneEventPayloadType, encryption: media.encryption,
                redPayloadType: media.redPayloadType, peerBandwidthLimit: media.peerBandwidthLimit)
            // Only a new address is passed on: the stream may be sending to where the peer's
            // authenticated media comes from (a NAT's), which the same SDP again must not undo.
            if moved { existing.updateRemote(remote, rtcp: existing.configuration.rtcpMux ? nil : remoteRTCP) }
            if iceRestarted, let restart = MediaPath.ICERestart(negotiated: media, localPort: localPort, resolvingNames: true) {
                existing.restartICE(restart)
                resolveNames(of: media, for: existing)
            }
            applyDirection()
            return
        }
        let local: SocketAddress
        do {
            local = try SocketAddress(host: localHost, port: Int(localPort))
        } catch {
            throw .invalidConfiguration("local media address \(localHost): \(error)")
        }
        var configuration = AudioStreamConfiguration(
            localAddress: local, codec: media.codec, payloadType: media.payloadType, ptime: media.ptime,
            encryption: media.encryption)
        configuration.telephoneEventPayloadType = media.telephoneEventPayloadType
        configuration.redPayloadType = media.redPayloadType
        configuration.peerBandwidthLimit = media.peerBandwidthLimit
        configuration.redSending = redSending
        configuration.audioLevelExtensionID = media.audioLevelExtensionID
        configuration.sendsVoIPMetrics = media.peerWantsVoIPMetrics
        configuration.rtcpMux = media.rtcpMux
        configuration.enableDSCP = enableDSCP
        var transport: UDPSocket?
        var rtcpTransport: UDPSocket?
        if let (rtp, rtcp) = reserved?.take() {
            do throws(SocketError) {
                transport = try UDPSocket(adopting: rtp)
                rtcpTransport = rtcp >= 0 ? try UDPSocket(adopting: rtcp) : nil
            } catch {
                throw .socket(error)
            }
        }
        var path: MediaPathSetup?
        if case .dtlsSRTP = media.encryption {
            path = try MediaPathSetup(
                negotiated: media, localICE: localICE, certificate: certificate, localPort: localPort, resolvingNames: true)
            path?.relay = relay
        }
        let stream = try AudioStream(
            configuration: configuration, engine: engine, transport: transport, rtcpTransport: rtcpTransport, path: path)
        let audioDevice = state.withLock { $0.audioDevice }
        try stream.start(remote: remote, remoteRTCP: media.rtcpMux ? nil : remoteRTCP, audioDevice: audioDevice, onEvent: onEvent)
        let stale = state.withLock { s -> Bool in
            guard !s.stopped else { return true }
            s.stream = stream
            return false
        }
        if stale {
            stream.stop()
        } else {
            applyDirection()
            if path != nil { resolveNames(of: media, for: stream) }
        }
    }

    /// Resolves the peer's `.local` candidates off this thread; the stream's agent gets them
    /// (or hears that none resolved) within a second. The agent checks the peer's other
    /// candidates, and answers its checks, meanwhile.
    private func resolveNames(of media: SDPNegotiatedMedia, for stream: AudioStream) {
        guard let remote = media.ice?.remote, remote.candidates.contains(where: { $0.multicastDNSName != nil }) else { return }
        let usernameFragment = remote.usernameFragment
        (multicastDNS ?? .shared).resolve(candidates: remote.candidates) { resolved in
            stream.addRemoteCandidates(resolved, usernameFragment: usernameFragment)
        }
    }

    /// The user's mute switch (sends silence); combined with what the SDP direction allows.
    package var isMuted: Bool {
        get { state.withLock { $0.userMuted } }
        set {
            state.withLock { $0.userMuted = newValue }
            applyDirection()
        }
    }

    /// The user's hold switch: sends silence and plays nothing, whatever the SDP direction, so
    /// hold takes effect at once rather than when the re-INVITE is answered.
    package var isOnHold: Bool {
        get { state.withLock { $0.userHeld } }
        set {
            state.withLock { $0.userHeld = newValue }
            applyDirection()
        }
    }

    /// Sends RFC 4733 digits (`0`–`9`, `*`, `#`, `A`–`D`, `w` pauses).
    package func sendDigits(_ digits: String) throws(AudioStreamError) {
        guard let stream = state.withLock({ $0.stream }) else { throw .invalidState("media is not running") }
        try stream.sendDigits(digits)
    }

    /// Moves the call's audio to `device`: at once when the stream runs, else when it starts.
    /// The old device is released. Throws as ``AudioStream/switchAudioDevice(to:)``.
    package func switchAudioDevice(to device: any AudioDevice) throws(AudioStreamError) {
        let stream = state.withLock { s -> AudioStream? in
            if s.stream == nil { s.audioDevice = device }
            return s.stream
        }
        guard let stream else { return }
        try stream.switchAudioDevice(to: device)
        state.withLock { $0.audioDevice = device }
    }

    /// The stream, once running (for stats).
    package var stream: AudioStream? { state.withLock { $0.stream } }

    /// Stops the stream and closes its sockets. Idempotent.
    package func stop() {
        reserved?.release()
        let stream = state.withLock { s -> AudioStream? in
            s.stopped = true
            let x = s.stream
            s.stream = nil
            return x
        }
        stream?.stop()
    }

    private func applyDirection() {
        let (stream, direction, userMuted, userHeld) = state.withLock { ($0.stream, $0.direction, $0.userMuted, $0.userHeld) }
        guard let stream else { return }
        // Only our own hold silences both ways: a `sendonly` direction may be our answer to a
        // peer that only listens, which must hear us; where the peer sends nothing, nothing plays.
        stream.isOnHold = userHeld
        stream.isMuted = userMuted || !direction.sends
    }
}
