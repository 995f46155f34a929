import VoiceEmbedded
import Dispatch
import NIOCore
import NIOPosix
import Synchronization
import VoiceMedia
import VoiceSIP
import VoiceSIPAgent
import VoiceRTP
import VoiceSupport

/// A SIP callee for tests, on loopback over UDP or TCP: it answers the first INVITE at once
/// (180, then 200 with an SDP answer from a real ``SIPInviteSession``), or sends early media
/// (183 with the answer) and waits for the test to ``answer()`` or ``reject(statusCode:)``. It
/// lets the test choose how each later request is answered: by the session, with a fixed
/// status, or not at all. It can send INFO in the dialog and close the connections peers
/// opened to it.
///
/// It runs no transactions: nothing is retransmitted, which loopback does not need. RTP sent to
/// it lands on a bound socket nobody reads, unless the peer was given an audio device: then a
/// real stream takes that socket over from the first answer (183 or 200), playing and
/// capturing it. On an in-memory SIP network with an embedded media engine, the same runs in
/// virtual time.
///
/// Thread-safe: the session lives on the transport's event loop; the answer policy and the
/// recorded requests sit behind one lock.
package final class SIPScriptedPeer: @unchecked Sendable {
    // @unchecked: `session` and `sources` are touched on `transport.eventLoop` only; `shared` is `Locked`.

    /// How the peer answers a request after the INVITE (ACKs always go to the session).
    package enum Answer: Sendable {
        /// Let the session answer (200 to INFO, BYE, re-INVITE…).
        case session
        /// Answer with this status, without telling the session.
        case status(Int)
        /// Do not answer.
        case silence
    }

    private struct Shared {
        var answer: @Sendable (SIPRequest) -> Answer
        var requests: [SIPRequest] = []
        var responses: [SIPResponse] = []
    }

    /// A redirect server's answer to every INVITE: a 3xx with these Contact field values.
    package struct Redirect: Sendable {
        package var statusCode: Int
        package var contacts: [String]
        package init(statusCode: Int, contacts: [String]) {
            self.statusCode = statusCode
            self.contacts = contacts
        }
    }

    /// Where the peer listens.
    package let endpoint: SIPTransportEndpoint
    private let redirect: Redirect?
    private let transport: any SIPTransport
    private let media: (any MediaTransport)?
    private let mediaEngine: MediaEngine
    private let shared: Locked<Shared>
    private let configuration: SIPInviteSession.Configuration
    private var session: SIPInviteSession?
    private var sources: Set<SIPTransportEndpoint> = []
    private let earlyMedia: Bool
    /// Where the INVITE came from (the answer to an early-media call goes there).
    private var inviteSource: SIPTransportEndpoint?
    private let audioDevice: (any AudioDevice)?
    private let stream = Locked<AudioStream?>(nil)
    /// Where the stream starts and stops (binding sockets stays off the event loop).
    private let mediaQueue = DispatchQueue(label: "SIPScriptedPeer.media")

    /// Binds the peer.
    /// - Parameters:
    ///   - transport: UDP or TCP.
    ///   - user: The user part of its address.
    ///   - telephoneEvents: Whether its SDP answer accepts RFC 4733 events (without them, digits come as INFO).
    ///   - earlyMedia: Answer the INVITE with 183 and the SDP answer, then wait for ``answer()``
    ///     or ``reject(statusCode:)``.
    ///   - audioDevice: Run real media on this device once the SDP answer is sent.
    ///   - answer: How to answer each request after the INVITE; see ``setAnswer(_:)``.
    ///   - network: Where it listens: real sockets on loopback (nil), or an in-memory network's
    ///     transport factory, at `host` and `port` (its SDP then names port 40000, where nothing
    ///     listens, unless `mediaEngine` is given).
    ///   - mediaEngine: The engine its stream runs on and binds its media port with: the shared
    ///     one (UDP) by default; with `network`, an embedded engine on an in-memory media network.
    package init(
        transport: SIPTransportProtocol = .udp, user: String = "peer", telephoneEvents: Bool = false,
        host: String = "127.0.0.1", port: Int = 0, network: SIPTransportFactory? = nil, mediaEngine: MediaEngine? = nil,
        earlyMedia: Bool = false, audioDevice: (any AudioDevice)? = nil, redirect: Redirect? = nil,
        answer: @escaping @Sendable (SIPRequest) -> Answer = { _ in .session }
    ) throws {
        self.earlyMedia = earlyMedia
        self.redirect = redirect
        let ownsMedia = network == nil || mediaEngine != nil
        self.audioDevice = ownsMedia ? audioDevice : nil
        self.mediaEngine = mediaEngine ?? .shared
        media = ownsMedia ? try self.mediaEngine.transports.bind(try VoiceRTP.SocketAddress(host: host, port: 0)) : nil
        shared = Locked(Shared(answer: answer))
        let box = SIPScriptedPeerBox()
        let onEvent: @Sendable (SIPTransportEvent) -> Void = { event in box.peer?.handle(event) }
        if let network {
            self.transport = try network(onEvent)
        } else {
            self.transport = try SIPTransportLayer(group: MultiThreadedEventLoopGroup.singleton, onEvent: onEvent)
        }
        endpoint = try self.transport.listen(transport, host: host, port: port).wait()
        var contact = SIPURI(user: user, host: host, port: endpoint.port)
        if transport != .udp { contact.parameters.set("transport", transport.uriParameter) }
        var via = SIPVia(transport: transport.rawValue, host: host, port: endpoint.port)
        via.parameters.set("rport", nil)
        configuration = SIPInviteSession.Configuration(
            localIdentity: SIPNameAddress(uri: SIPURI(user: user, host: host)), contact: contact, via: via,
            capabilities: SDPLocalCapabilities(
                address: host, port: media.map { UInt16($0.localAddress.port) } ?? 40_000, telephoneEvents: telephoneEvents))
        box.peer = self
    }

    /// The URI to call the peer at.
    package var uri: SIPURI { configuration.contact }

    /// Replaces the answer policy for requests from now on.
    package func setAnswer(_ answer: @escaping @Sendable (SIPRequest) -> Answer) {
        shared.withLock { $0.answer = answer }
    }

    /// Every request received so far, ACKs included, in order.
    package var requests: [SIPRequest] { shared.withLock { $0.requests } }

    /// Every response received so far (to the INFO the peer sent), in order.
    package var responses: [SIPResponse] { shared.withLock { $0.responses } }

    /// Sends INFO in the dialog (after the call was set up) to the caller's Contact.
    /// - Throws: ``SIPInviteSessionError`` when the session refuses it.
    package func sendInfo(contentType: String, body: [UInt8], headers: SIPHeaders = SIPHeaders()) throws {
        try onLoop {
            guard var session = self.session else { throw SIPInviteSessionError.notConfirmed }
            let actions = try session.sendInfo(contentType: contentType, body: body, headers: headers, now: .zero)
            self.session = session
            self.perform(actions, source: nil)
        }
    }

    /// Runs `body` on the transport's event loop and waits for it: at once when this is that loop
    /// (an `EmbeddedEventLoop` driven by the test's thread, where waiting would never end).
    private func onLoop<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        if transport.eventLoop.inEventLoop { return try body() }
        return try transport.eventLoop.submit(body).wait()
    }

    /// Closes every TCP connection a peer opened to us (as a crashed or restarted proxy would).
    package func closeConnections() {
        let closes = try? onLoop {
            self.sources.filter { $0.transport != .udp }.map { self.transport.closeConnection(to: $0) }
        }
        for close in closes ?? [] { try? close.wait() }
    }

    /// Answers an early-media call with 200 (the same SDP answer as the 183).
    package func answer() {
        try? onLoop {
            guard var session = self.session else { return }
            let actions = session.accept(now: .zero)
            self.session = session
            self.perform(actions, source: self.inviteSource)
        }
    }

    /// Refuses an early-media call with `statusCode` (its media stops).
    package func reject(statusCode: Int) {
        try? onLoop {
            guard var session = self.session else { return }
            let actions = session.reject(statusCode: statusCode, now: .zero)
            self.session = session
            self.perform(actions, source: self.inviteSource)
        }
        stopMedia()
    }

    /// What the peer's own stream has sent and received, while it runs.
    package var mediaStats: AudioStreamStats? { stream.withLock { $0?.stats } }

    /// Whether the session has ended (a BYE, a CANCEL, a rejection).
    package var isTerminated: Bool {
        let state = try? onLoop { self.session?.state }
        if case .terminated? = state { return true }
        return false
    }

    /// Closes the sockets.
    package func shutdown() {
        if transport.eventLoop.inEventLoop {
            _ = transport.shutdown()
        } else {
            try? transport.shutdown().wait()
        }
        stopMedia()
        media?.close()
    }

    private func stopMedia() {
        if mediaEngine.network != nil {
            stream.withLock { $0.take() }?.stop()
        } else {
            mediaQueue.sync { stream.withLock { $0.take() }?.stop() }
        }
    }

    /// Starts the peer's stream on the port its SDP named (the transport bound for the SDP is
    /// handed over), from the session's negotiated media: off the event loop on real sockets,
    /// at once on an embedded engine.
    private func startMedia(_ negotiated: SDPNegotiatedMedia) {
        guard let audioDevice, let media, stream.withLock({ $0 == nil }) else { return }
        let local = media.localAddress
        let engine = mediaEngine
        let start: @Sendable () -> Void = {
            do {
                let remote = try VoiceRTP.SocketAddress(host: negotiated.remoteRTP.host, port: Int(negotiated.remoteRTP.port))
                var configuration = AudioStreamConfiguration(
                    localAddress: local, codec: negotiated.codec, payloadType: negotiated.payloadType,
                    ptime: negotiated.ptime, encryption: negotiated.encryption)
                configuration.telephoneEventPayloadType = negotiated.telephoneEventPayloadType
                configuration.redPayloadType = negotiated.redPayloadType
                configuration.peerBandwidthLimit = negotiated.peerBandwidthLimit
                configuration.sendsVoIPMetrics = negotiated.peerWantsVoIPMetrics
                configuration.rtcpMux = negotiated.rtcpMux
                let started = try AudioStream(configuration: configuration, engine: engine, transport: media)
                let remoteRTCP = negotiated.rtcpMux
                    ? nil : try VoiceRTP.SocketAddress(host: negotiated.remoteRTCP.host, port: Int(negotiated.remoteRTCP.port))
                try started.start(remote: remote, remoteRTCP: remoteRTCP, audioDevice: audioDevice, onEvent: nil)
                self.stream.withLock { $0 = started }
            } catch {
                print("SIPScriptedPeer: media did not start: \(error)")
            }
        }
        if engine.network != nil { start() } else { mediaQueue.async(execute: start) }
    }

    // MARK: - On the event loop

    private func handle(_ event: SIPTransportEvent) {
        guard case .received(let message, let source) = event else { return }
        switch message {
        case .request(let request):
            receive(request, from: source)
        case .response(let response):
            shared.withLock { $0.responses.append(response) }
            guard var session else { return }
            let actions = session.receiveResponse(response, now: .zero)
            self.session = session
            perform(actions, source: nil)
        }
    }

    private func receive(_ request: SIPRequest, from source: SIPTransportEndpoint) {
        sources.insert(source)
        let answer = shared.withLock { shared -> Answer in
            shared.requests.append(request)
            return request.method == .ack || request.method == .invite && session == nil ? .session : shared.answer(request)
        }
        if let redirect {
            // A redirect server: every INVITE gets the 3xx; its ACK needs no answer.
            guard request.method == .invite else { return }
            var response = SIPResponse(replyingTo: request, statusCode: redirect.statusCode, toTag: "redirect")
            for contact in redirect.contacts { response.headers.add("Contact", contact) }
            send(.response(response), to: source)
            return
        }
        guard var session else {
            guard request.method == .invite else {
                send(.response(SIPResponse(replyingTo: request, statusCode: 481, toTag: "none")), to: source)
                return
            }
            var rng = SecureRandomNumberGenerator()
            var created = SIPInviteSession(incoming: request, configuration: configuration, using: &rng)
            let actions = earlyMedia ? created.sendEarlyMedia(now: .zero) : created.ring(now: .zero) + created.accept(now: .zero)
            self.session = created
            inviteSource = source
            perform(actions, source: source)
            if let negotiated = created.negotiatedMedia { startMedia(negotiated) }
            return
        }
        switch answer {
        case .session:
            let actions = session.receiveRequest(request, now: .zero)
            self.session = session
            perform(actions, source: source)
        case .status(let code):
            send(.response(SIPResponse(replyingTo: request, statusCode: code, toTag: session.localTag)), to: source)
        case .silence:
            break
        }
    }

    /// Sends what the session asks: responses back to `source`, requests to the dialog's target.
    private func perform(_ actions: [SIPInviteSessionAction], source: SIPTransportEndpoint?) {
        for action in actions {
            switch action {
            case .sendResponse(let response):
                if let source { send(.response(response), to: source) }
            case .sendRequest(let request), .sendACK(let request):
                let target = (try? request.headers.route().first?.uri) ?? request.uri
                let kind = SIPTransportProtocol(rawValue: target.parameters.value("transport")?.uppercased() ?? "UDP") ?? .udp
                guard let port = target.port, let destination = try? SIPTransportEndpoint(transport: kind, ip: target.host, port: port)
                else { continue }
                send(.request(request), to: destination)
            case .startTimer, .cancelTimer, .event:
                break
            }
        }
    }

    private func send(_ message: SIPMessage, to destination: SIPTransportEndpoint) {
        _ = transport.send(message.serialized(), to: destination, serverName: nil)
    }
}

/// Lets the transport's event closure reach the peer once it exists.
final class SIPScriptedPeerBox: @unchecked Sendable {
    // @unchecked: set once during init, before any request can arrive.
    weak var peer: SIPScriptedPeer?
}
