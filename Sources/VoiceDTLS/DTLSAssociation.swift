import CVoiceDTLS
import VoiceSupport
@_exported import VoiceDTLSTypes

/// One DTLS-SRTP association (RFC 5763, RFC 5764) for one media stream, as an event-driven
/// object: feed it the datagrams that RFC 7983's first-byte rule classifies as DTLS and the
/// clock's ticks, send what it returns. It owns no socket and no timer.
///
/// The handshake deadline runs on the injected clock. Retransmissions are OpenSSL's, which reads
/// the real clock: ``nextDeadline`` says when OpenSSL next wants to retransmit, and ``tick(now:)``
/// asks it (on a virtual clock that runs ahead, OpenSSL simply says not yet).
///
/// Not thread-safe: one media thread drives it.
package final class DTLSAssociation {
    package let role: DTLSRole
    package private(set) var state: DTLSAssociationState = .idle
    private let handle: OpaquePointer
    private let certificate: DTLSCertificate
    private let configuration: DTLSConfiguration
    private var remoteFingerprints: [DTLSFingerprint]?
    private var handshakeDeadline: MediaTime?
    private var lastNow: MediaTime = .zero
    private var scratch = [UInt8](repeating: 0, count: 2048)
    /// Datagrams dropped because they arrived faster than the handshake read them.
    package private(set) var droppedDatagrams = 0

    /// An association as `role`, checking the peer's certificate against `remoteFingerprints`
    /// (nil when the peer's SDP has not arrived yet).
    /// - Throws: ``DTLSError/unsupportedFingerprintAlgorithm(_:)`` when no fingerprint can be checked.
    package init(
        certificate: DTLSCertificate, role: DTLSRole, remoteFingerprints: [DTLSFingerprint]?,
        configuration: DTLSConfiguration = DTLSConfiguration()
    ) throws(DTLSError) {
        if let remoteFingerprints { try Self.checkable(remoteFingerprints) }
        let initial = UInt32(clamping: max(1, configuration.initialRetransmissionTimeout.nanoseconds / 1_000_000))
        guard let handle = voice_dtls_new(certificate.identity, role == .server ? 1 : 0, UInt32(clamping: configuration.mtu), initial) else {
            throw .handshakeFailed("could not create a DTLS session")
        }
        self.handle = handle
        self.certificate = certificate
        self.role = role
        self.configuration = configuration
        self.remoteFingerprints = remoteFingerprints
    }

    deinit { voice_dtls_free(handle) }

    /// Starts the handshake: a client sends its ClientHello, a server waits for one. The
    /// handshake deadline starts now.
    package func start(now: MediaTime) -> [DTLSAction] {
        lastNow = now
        guard case .idle = state else { return [] }
        state = .handshaking
        handshakeDeadline = now + configuration.handshakeTimeout
        return advance()
    }

    /// A datagram from the peer whose first byte is 20–63 (RFC 7983).
    package func receive(_ datagram: [UInt8], now: MediaTime) -> [DTLSAction] {
        lastNow = now
        switch state {
        case .failed, .closed: return []
        case .idle:
            // A ClientHello can arrive before our side started (the peer's checks won first).
            state = .handshaking
            handshakeDeadline = now + configuration.handshakeTimeout
        case .handshaking, .awaitingFingerprint, .connected: break
        }
        let accepted = datagram.withUnsafeBufferPointer { voice_dtls_feed(handle, $0.baseAddress, $0.count) }
        if accepted == 0 {
            droppedDatagrams += 1
            return []
        }
        return advance()
    }

    /// The peer's fingerprints, when its SDP arrives after the handshake started.
    package func setRemoteFingerprints(_ fingerprints: [DTLSFingerprint], now: MediaTime) -> [DTLSAction] {
        lastNow = now
        do throws(DTLSError) {
            try Self.checkable(fingerprints)
        } catch {
            return fail(error)
        }
        remoteFingerprints = fingerprints
        guard case .awaitingFingerprint = state else { return [] }
        return finish()
    }

    /// Runs the timers: the handshake deadline, and OpenSSL's retransmission.
    package func tick(now: MediaTime) -> [DTLSAction] {
        lastNow = now
        switch state {
        case .handshaking, .awaitingFingerprint:
            if let handshakeDeadline, now >= handshakeDeadline { return fail(.handshakeTimedOut) }
        case .idle, .connected, .closed, .failed:
            return []
        }
        if voice_dtls_handle_timeout(handle) < 0 { return fail(.noAnswer) }
        return drain()
    }

    /// When ``tick(now:)`` should next run, or nil when no timer runs.
    package var nextDeadline: MediaTime? {
        switch state {
        case .handshaking, .awaitingFingerprint:
            let retransmit = voice_dtls_timeout_ms(handle)
            let retransmitAt = retransmit >= 0 ? lastNow + .milliseconds(Int64(retransmit)) : nil
            return [handshakeDeadline, retransmitAt].compactMap { $0 }.min()
        case .idle, .connected, .closed, .failed:
            return nil
        }
    }

    /// Ends the association with close_notify (the call hung up).
    package func close() -> [DTLSAction] {
        switch state {
        case .closed, .failed: return []
        case .idle:
            state = .closed
            return []
        case .handshaking, .awaitingFingerprint, .connected:
            voice_dtls_shutdown(handle)
            state = .closed
            return drain()
        }
    }

    // MARK: - Inside

    private func advance() -> [DTLSAction] {
        let result = voice_dtls_advance(handle)
        var actions = drain()
        switch result {
        case VOICE_DTLS_IN_PROGRESS:
            break
        case VOICE_DTLS_CONNECTED:
            if case .handshaking = state { actions += finish() }
        case VOICE_DTLS_CLOSED:
            state = .closed
            actions.append(.closed)
        default:
            let reason = String(cString: voice_dtls_error(handle))
            let error: DTLSError = voice_dtls_failure_was_alert(handle) != 0 ? .peerAlert(reason) : .handshakeFailed(reason)
            if case .connected = state {
                // After the handshake a bad record is dropped by OpenSSL; a fatal alert ends media.
                state = .failed(error)
                actions.append(.failed(error))
            } else {
                actions += fail(error)
            }
        }
        return actions
    }

    /// The handshake is done: check the fingerprint, export the keys.
    private func finish() -> [DTLSAction] {
        guard let expected = remoteFingerprints else {
            state = .awaitingFingerprint
            return []
        }
        var actual: [DTLSFingerprint] = []
        for fingerprint in expected where fingerprint.isSupported {
            guard let peer = peerFingerprint(algorithm: fingerprint.algorithm) else { continue }
            actual.append(peer)
            if peer.bytes == fingerprint.bytes { return connect(peer) }
        }
        return fail(.fingerprintMismatch(expected: expected, actual: actual))
    }

    private func connect(_ peer: DTLSFingerprint) -> [DTLSAction] {
        guard let suite = DTLSSRTPKeys.suite(forProfile: voice_dtls_srtp_profile(handle)) else { return fail(.noSRTPProfile) }
        var exported = [UInt8](repeating: 0, count: 2 * suite.keyMaterialLength)
        guard voice_dtls_export_srtp_keys(handle, &exported, exported.count) == 1 else {
            return fail(.handshakeFailed("keying material export failed"))
        }
        let keys = DTLSSRTPKeys(
            exported: exported, suite: suite, role: role, peerFingerprint: peer,
            version: String(cString: voice_dtls_version(handle)), cipher: String(cString: voice_dtls_cipher(handle)))
        state = .connected(keys)
        handshakeDeadline = nil
        return [.connected(keys)]
    }

    private func peerFingerprint(algorithm: String) -> DTLSFingerprint? {
        var digest = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        guard voice_dtls_peer_fingerprint(handle, algorithm, &digest, &length) == 1 else { return nil }
        return DTLSFingerprint(algorithm: algorithm, bytes: Array(digest.prefix(Int(length))))
    }

    private func fail(_ error: DTLSError) -> [DTLSAction] {
        if case .failed = state { return [] }
        state = .failed(error)
        handshakeDeadline = nil
        return drain() + [.failed(error)]
    }

    /// Everything OpenSSL queued to send, one datagram each.
    private func drain() -> [DTLSAction] {
        var actions: [DTLSAction] = []
        while true {
            let length = voice_dtls_pop(handle, &scratch, scratch.count)
            if length <= 0 { break }
            actions.append(.send(Array(scratch.prefix(length))))
        }
        return actions
    }

    private static func checkable(_ fingerprints: [DTLSFingerprint]) throws(DTLSError) {
        guard fingerprints.contains(where: \.isSupported) else {
            throw .unsupportedFingerprintAlgorithm(fingerprints.map(\.algorithm).joined(separator: ", "))
        }
    }
}

@available(*, unavailable)
extension DTLSAssociation: Sendable {}
