import VoiceEmbedded
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes

/// Collects a transport layer's events for assertions, waiting with a deadline.
final class SIPTransportEventRecorder: Sendable {
    private let events = Locked<[SIPTransportEvent]>([])

    var handler: @Sendable (SIPTransportEvent) -> Void { { event in self.events.withLock { $0.append(event) } } }

    var all: [SIPTransportEvent] { events.withLock { $0 } }

    var messages: [(SIPMessage, SIPTransportEndpoint)] {
        all.compactMap { if case .received(let m, let s) = $0 { return (m, s) } else { return nil } }
    }

    /// Waits until `count` messages arrived or `timeout` passed; returns the messages.
    func waitForMessages(_ count: Int, timeout: TimeInterval = 5) -> [(SIPMessage, SIPTransportEndpoint)] {
        waitUntil(timeout: timeout) { self.messages.count >= count }
        return messages
    }

    @discardableResult
    func waitUntil(timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
        PollingWait.until(timeout: timeout, condition)
    }
}

enum SIPTransportFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/tls").path

    /// A client configuration that trusts the fixtures' test CA.
    static func clientTrustingTestCA() throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(directory + "/ca.pem"))
        return configuration
    }

    /// A server configuration with the fixtures' certificate for localhost/127.0.0.1/::1 (signed by the test CA),
    /// or the untrusted self-signed one.
    /// `named` carries only DNS:sip.voice.test (no IP SANs), for host name checks.
    static func server(untrusted: Bool = false, named: Bool = false) throws -> TLSConfiguration {
        let name = untrusted ? "untrusted" : named ? "named" : "server"
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(directory + "/\(name).pem").map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: directory + "/\(name).key", format: .pem))
        )
    }

    static func options(branch: String = SIPIdentifierGenerator.branch(), transport: String = "UDP") -> [UInt8] {
        let text =
            "OPTIONS sip:bob@127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/\(transport) 127.0.0.1:5060;branch=\(branch);rport\r\n"
            + "Max-Forwards: 70\r\nTo: <sip:bob@127.0.0.1>\r\nFrom: <sip:alice@127.0.0.1>;tag=abc\r\n"
            + "Call-ID: \(branch)@test\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"
        return Array(text.utf8)
    }
}

/// A test case that makes transport layers on one event loop of its own and shuts every layer
/// and the loop down after each test.
class SIPTransportTestCase: XCTestCase {
    private(set) var group: MultiThreadedEventLoopGroup!
    private var layers: [SIPTransportLayer] = []

    override func setUp() {
        super.setUp()
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    override func tearDown() {
        for layer in layers { try? layer.shutdown().wait() }
        layers = []
        try? group.syncShutdownGracefully()
        super.tearDown()
    }

    /// A transport layer on the test's loop, reporting to `recorder`; shut down after the test.
    func makeLayer(_ recorder: SIPTransportEventRecorder, configuration: SIPTransportConfiguration = .init()) throws -> SIPTransportLayer {
        let layer = try SIPTransportLayer(group: group, configuration: configuration, onEvent: recorder.handler)
        layers.append(layer)
        return layer
    }
}
