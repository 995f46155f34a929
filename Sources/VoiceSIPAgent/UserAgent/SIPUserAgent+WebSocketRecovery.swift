import NIOCore
import VoiceSIP
import VoiceSupport

extension SIPUserAgent {
    /// The delay before reconnection attempt `n` (from 0) of a WebSocket client: at once, then
    /// 0.5 s doubling up to 30 s (the shape of browsers' SIP stacks' reconnection).
    static func webSocketRecoveryDelay(attempt: Int) -> TimeAmount {
        guard attempt > 0 else { return .zero }
        return .milliseconds(min(30_000, 500 << min(attempt - 1, 6)))
    }

    /// A WebSocket client's registration lives on its connection: the proxy reaches it only
    /// over the connection the REGISTER came on (RFC 7118 §5, RFC 5626 §4.4.1). When that
    /// connection drops (the proxy restarted, a middlebox cut it), the binding is useless, so
    /// the client registers again at once over a new connection, and keeps trying with back-off
    /// while the proxy cannot be reached; calls re-INVITE as for any lost connection. On the loop.
    func webSocketConnectionLost(_ remote: SIPTransportEndpoint) {
        guard isWebSocketClientOnly, !isShutDown, registration != nil, webSocketRecovery == nil else { return }
        if let hop = flow?.hop, hop != remote { return }
        logger.notice("WebSocket connection to \(remote) lost: registering again")
        webSocketRecovery = (attempts: 0, timer: nil)
        scheduleWebSocketRecovery()
    }

    private func scheduleWebSocketRecovery() {
        guard var recovery = webSocketRecovery, !isShutDown else { return }
        recovery.timer?.cancel()
        let attempt = recovery.attempts
        recovery.timer = eventLoop.scheduleTask(in: Self.webSocketRecoveryDelay(attempt: attempt)) {
            guard var recovery = self.webSocketRecovery else { return }
            recovery.timer = nil
            recovery.attempts += 1
            self.webSocketRecovery = recovery
            if !self.refreshRegistrationOnLoop() { self.webSocketRecovery = nil }
        }
        webSocketRecovery = recovery
    }

    /// Follows the registration while recovering: registered ends it; a failed attempt (the
    /// proxy still down) schedules the next one sooner than the registration's own retry.
    func webSocketRegistrationChanged(_ event: SIPRegistrationEvent) {
        guard webSocketRecovery != nil else { return }
        switch event {
        case .registered:
            webSocketRecovery?.timer?.cancel()
            webSocketRecovery = nil
        case .failed(_, let retry):
            if retry == nil {
                webSocketRecovery = nil
            } else if webSocketRecovery?.timer == nil {
                scheduleWebSocketRecovery()
            }
        default:
            break
        }
    }
}
