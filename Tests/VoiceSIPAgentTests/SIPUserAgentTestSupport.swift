import Foundation
import Logging
import NIOCore
import NIOPosix
import VoiceMedia
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

/// A user agent under test with its events recorded, and helpers to wait for them.
final class SIPTestAgent: Sendable {
    let agent: SIPUserAgent
    let endpoint: SIPTransportEndpoint
    private let recorded: Locked<[SIPUserAgentEvent]>

    init(
        user: String, transport: SIPTransportProtocol = .udp, host: String = "127.0.0.1",
        credentials: [SIPAuthCredentials] = [], domain: String? = nil, outboundProxy: SIPURI? = nil,
        encryption: SDPEncryptionPolicy = .required, logger customLogger: Logger? = nil,
        configure: (inout SIPUserAgentConfiguration) throws -> Void = { _ in }
    ) throws {
        let box = Locked<[SIPUserAgentEvent]>([])
        recorded = box
        var configuration = SIPUserAgentConfiguration(
            identity: SIPNameAddress(uri: SIPURI(user: user, host: domain ?? host)), credentials: credentials,
            transport: transport, listenHost: host, outboundProxy: outboundProxy,
            media: SDPLocalCapabilities(address: host, port: 0, encryption: encryption))
        var transactions = SIPTransactionConfiguration.rfc3261
        transactions.t1 = .milliseconds(100)  // loopback: short retransmission timers keep failure tests quick
        configuration.transactionConfiguration = transactions
        if transport == .tls {
            configuration.transportConfiguration.tlsClient = try SIPTransportFixtures.clientTrustingTestCA()
            configuration.transportConfiguration.tlsServer = try SIPTransportFixtures.server()
        }
        try configure(&configuration)
        var logger = Logger(label: "test.sip.\(user)")
        // SIP_TRACE=1 prints every message sent and received.
        logger.logLevel = ProcessInfo.processInfo.environment["SIP_TRACE"] == nil ? .warning : .trace
        agent = try SIPUserAgent(configuration: configuration, logger: customLogger ?? logger) { event in box.withLock { $0.append(event) } }
        endpoint = try agent.start().wait()
    }

    /// The URI other agents call us at.
    var uri: SIPURI {
        var uri = SIPURI(
            scheme: endpoint.transport == .tls ? .sips : .sip, user: agent.configuration.identity.uri.user,
            host: endpoint.host, port: endpoint.port)
        if endpoint.transport == .tcp { uri.parameters.set("transport", "tcp") }
        return uri
    }

    var events: [SIPUserAgentEvent] { recorded.withLock { $0 } }

    /// Forgets the events so far (before a second call's waits).
    func clearEvents() { recorded.withLock { $0 = [] } }

    func callEvents(_ handle: SIPCallHandle) -> [SIPInviteSessionEvent] {
        events.compactMap { if case .call(let h, let e) = $0, h == handle { return e } else { return nil } }
    }

    /// Waits for the first event `match` accepts; nil after the timeout.
    func wait<T>(timeout: TimeInterval = 10, _ match: (SIPUserAgentEvent) -> T?) -> T? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let found = events.lazy.compactMap(match).first { return found }
            usleep(2_000)
        }
        return nil
    }

    func waitForIncomingCall(timeout: TimeInterval = 10) -> (SIPCallHandle, SIPRequest)? {
        wait(timeout: timeout) { if case .incomingCall(let h, let invite, _, _) = $0 { return (h, invite) } else { return nil } }
    }

    func waitForCallEvent<T>(_ handle: SIPCallHandle, timeout: TimeInterval = 10, _ match: @escaping (SIPInviteSessionEvent) -> T?) -> T? {
        wait(timeout: timeout) { if case .call(let h, let e) = $0, h == handle { return match(e) } else { return nil } }
    }

    func waitForEstablished(_ handle: SIPCallHandle, timeout: TimeInterval = 10) -> SDPNegotiatedMedia? {
        waitForCallEvent(handle, timeout: timeout) { if case .established(let m) = $0 { return m } else { return nil } }
    }

    func waitForTermination(_ handle: SIPCallHandle, timeout: TimeInterval = 10) -> SIPSessionEndReason? {
        waitForCallEvent(handle, timeout: timeout) { if case .terminated(let r) = $0 { return r } else { return nil } }
    }

    func waitForRegistration(timeout: TimeInterval = 10, _ match: @escaping (SIPRegistrationEvent) -> Bool) -> SIPRegistrationEvent? {
        wait(timeout: timeout) { if case .registration(let e) = $0, match(e) { return e } else { return nil } }
    }

    func shutdown() { try? agent.shutdown().wait() }
}

extension UDPSocket {
    /// Sends hand-written SIP `text` to `destination` and returns the first datagram that comes
    /// back (as text), or nil after `timeout` seconds.
    func exchange(_ text: String, with destination: VoiceRTP.SocketAddress, timeout: TimeInterval = 5) -> String? {
        _ = Array(text.utf8).withUnsafeBytes { send($0, to: destination) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let reply = buffer.withUnsafeMutableBytes { raw in receive(into: raw).map { String(decoding: raw.prefix($0), as: UTF8.self) } }
            if let reply { return reply }
            usleep(5_000)
        }
        return nil
    }
}
