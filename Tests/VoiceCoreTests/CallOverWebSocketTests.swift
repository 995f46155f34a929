import VoiceEmbedded
import Foundation
import NIOSSL
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore
import VoiceSIPAgent

/// The SDK as a SIP-over-WebSocket client (RFC 7118), configured as an app would: a `ws://` or
/// `wss://` server address. Two clients, one over each, register at Kamailio's WebSocket
/// listener and call each other with audio both ways.
final class CallOverWebSocketTests: XCTestCase {
    private var clients: [TestVoiceClient] = []
    private var kamailio: KamailioPeer?

    override func tearDown() {
        for client in clients { client.client.shutdown() }
        clients = []
        kamailio?.stop()
    }

    /// The loopback certificate (localhost, 127.0.0.1, ::1) the transport tests use, and its CA.
    static let tlsFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../VoiceSIPAgentTests/Fixtures/tls").standardized.path

    /// Kamailio's WebSocket template on ws and wss (users alice, bob, carol), with `rtpengine`
    /// as its media gateway when given.
    static func startKamailio(rtpengine: RTPEnginePeer? = nil) throws -> KamailioPeer {
        try TestPrerequisites.kamailio()
        try TestPrerequisites.kamailioWebSocket()
        var configuration = KamailioConfiguration()
        configuration.users["carol"] = "carolpass"
        configuration.rtpengineControl = rtpengine?.control
        configuration.tls = KamailioTLS(
            port: try SIPPeerProcess.freePort(), certificate: tlsFixtures + "/server.pem", privateKey: tlsFixtures + "/server.key")
        configuration.secureWebSocketPort = try SIPPeerProcess.freePort()
        return try KamailioPeer(templatePath: PeerTemplates.kamailioWebSocket, configuration: configuration)
    }

    /// A client of `url` (ws:// or wss://), registered as `user`, trusting the fixtures' CA.
    static func webSocketClient(
        _ user: String, url: String, kamailio: KamailioPeer, signal: [Int16] = [], configure: (inout VoiceClientConfiguration) -> Void = { _ in }
    ) throws -> TestVoiceClient {
        let server = try SIPServerAddress(url)
        var trust = TLSConfiguration.makeClientConfiguration()
        trust.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(tlsFixtures + "/ca.pem"))
        return try TestVoiceClient(user, signal: signal) { configuration in
            configuration.domain = kamailio.configuration.realm
            configuration.outboundProxy = server
            configuration.registers = true
            configuration.username = user
            configuration.password = kamailio.configuration.users[user]
            configuration.transportSettings.tlsClient = trust
            configure(&configuration)
        }
    }

    func testServerAddressesTakeWebSocketURLs() throws {
        let secure = try SIPServerAddress("wss://edge.example.com/sip")
        XCTAssertEqual(secure.webSocketTransport, .wss)
        XCTAssertEqual(secure.webSocketPath, "/sip")
        XCTAssertEqual(secure.description, "wss://edge.example.com/sip")
        XCTAssertTrue(secure.requiresTLS)
        let plain = try SIPServerAddress("ws://192.0.2.5:8080")
        XCTAssertEqual(plain.webSocketTransport, .ws)
        XCTAssertEqual(plain.webSocketPath, "/")
        XCTAssertEqual(plain.port, 8080)
        XCTAssertEqual(try SIPServerAddress("ws://[2001:db8::5]:80/a?b=c").webSocketPath, "/a?b=c")
        XCTAssertNil(try SIPServerAddress("sip:proxy.example.com").webSocketTransport)
        for bad in ["ws://", "wss:///sip", "ws://user@host/", "ws://host:0/", "ws://host/#frag", "wss://host;transport=tcp/"] {
            XCTAssertThrowsError(try SIPServerAddress(bad), bad) { XCTAssertEqual(($0 as? VoiceError)?.code, .malformedRequest, bad) }
        }
        // A WebSocket address sets the transport; a different explicit one is a configuration error.
        var configuration = VoiceClientConfiguration(identity: "alice", domain: "example.com", outboundProxy: secure)
        XCTAssertEqual(try VoiceClient.signalingTransport(configuration), .wss)
        configuration.transport = .ws
        XCTAssertThrowsError(try VoiceClient.signalingTransport(configuration)) {
            XCTAssertEqual(($0 as? VoiceError)?.code, .malformedRequest)
        }
    }

    func testClientsOverWSAndWSSCallEachOtherWithAudio() throws {
        let kamailio = try Self.startKamailio()
        self.kamailio = kamailio
        let aliceSignal = TestSignals.multiTone([(440, 6_000), (1_250, 4_000)], seconds: 2)
        let bobSignal = TestSignals.speechLike(seconds: 2)
        let alice = try Self.webSocketClient("alice", url: kamailio.webSocketURL, kamailio: kamailio, signal: aliceSignal)
        let bob = try Self.webSocketClient("bob", url: try XCTUnwrap(kamailio.secureWebSocketURL), kamailio: kamailio, signal: bobSignal)
        clients += [alice, bob]
        XCTAssertEqual(alice.client.localEndpoint.transport, .ws)
        XCTAssertEqual(bob.client.localEndpoint.transport, .wss)
        let registered = Locked<VoiceError?>(VoiceError(.registrationError))
        let notifications = bob.listen(result: registered)
        XCTAssertNil(registered.withLock { $0 }, "bob registered over wss; log:\n\(kamailio.process.logTail())")
        let calleeDelegate = RecordingCallDelegate()
        notifications.onInvite.withLock {
            $0 = { invite in
                _ = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = calleeDelegate.queue }, delegate: calleeDelegate)
            }
        }
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: "bob", delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected], "log:\n\(kamailio.process.logTail())")
        XCTAssertEqual(calleeDelegate.wait(for: 1), [.connected])
        XCTAssertTrue(PollingWait.until(timeout: 10) { alice.device.recordedSamples.count >= 96_000 && bob.device.recordedSamples.count >= 96_000 })
        let atBob = SpectralSimilarity(playedInALoop: aliceSignal, in: Array(bob.device.recordedSamples.suffix(72_000)))
        let atAlice = SpectralSimilarity(playedInALoop: bobSignal, in: Array(alice.device.recordedSamples.suffix(72_000)))
        XCTAssertGreaterThan(atBob.score, 0.75, "alice → bob: \(atBob)")
        XCTAssertGreaterThan(atAlice.score, 0.75, "bob → alice: \(atAlice)")
        call.disconnect()
        XCTAssertEqual(calleeDelegate.waitForEnd(), [.connected, .disconnected(nil)])
    }

    /// A call over a WebSocket whose connection drops, whichever side closes it: the client
    /// (alice, who opened it and whose `.invalid` Contact nobody can connect to) reports
    /// reconnecting, opens a new WebSocket and re-INVITEs over it, as for TCP/TLS; audio goes on,
    /// and bob's BYE reaches her over the new connection.
    func testACallGoesOnOverANewWebSocketWhenItsConnectionDrops() throws {
        for callerCloses in [true, false] {
            let aliceSignal = TestSignals.multiTone([(440, 6_000), (1_250, 4_000)], seconds: 2)
            let bobSignal = TestSignals.speechLike(seconds: 2)
            let bob = try TestVoiceClient("bob", signal: bobSignal, transport: .ws) { $0.acceptsWebSocketConnections = true }
            let alice = try TestVoiceClient("alice", signal: aliceSignal, transport: .ws)
            clients += [alice, bob]
            let (call, delegate, accepted) = alice.call(acceptedBy: bob)
            XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected], "caller closes: \(callerCloses)")
            XCTAssertTrue(PollingWait.until(timeout: 5) { accepted.value != nil })
            let bobCall = try XCTUnwrap(accepted.value)
            let bobEndpoint = bob.client.localEndpoint
            XCTAssertTrue(try alice.client.agent.transport.hasConnection(to: bobEndpoint).wait(), "alice opened it")
            let oldPeer = try XCTUnwrap(try onCallLoop(bobCall) { core in core.handle.flatMap { core.client.agent.callInfo($0)?.invitePeer } })
            if callerCloses {
                try alice.client.agent.transport.closeConnection(to: bobEndpoint).wait()
            } else {
                try bob.client.agent.transport.closeConnection(to: oldPeer).wait()
            }
            XCTAssertEqual(
                delegate.wait(for: 4), [.ringing, .connected, .reconnecting(.signalingConnectionDisconnected), .reconnected],
                "caller closes: \(callerCloses)")
            XCTAssertEqual(alice.reconnectInsights, ["reconnecting 53001", "reconnected signaling"])
            XCTAssertTrue(try alice.client.agent.transport.hasConnection(to: bobEndpoint).wait(), "a new WebSocket")
            XCTAssertEqual(call.state, .connected)
            XCTAssertEqual(bobCall.state, .connected)
            // Audio still flows both ways after the re-INVITE.
            let heardBefore = (alice.device.recordedSamples.count, bob.device.recordedSamples.count)
            XCTAssertTrue(PollingWait.until(timeout: 10) {
                alice.device.recordedSamples.count >= heardBefore.0 + 72_000 && bob.device.recordedSamples.count >= heardBefore.1 + 72_000
            })
            let atBob = SpectralSimilarity(playedInALoop: aliceSignal, in: Array(bob.device.recordedSamples.suffix(72_000)))
            let atAlice = SpectralSimilarity(playedInALoop: bobSignal, in: Array(alice.device.recordedSamples.suffix(72_000)))
            XCTAssertGreaterThan(atBob.score, 0.75, "alice → bob after the drop: \(atBob)")
            XCTAssertGreaterThan(atAlice.score, 0.75, "bob → alice after the drop: \(atAlice)")
            // bob's BYE to alice's .invalid Contact goes over the connection her re-INVITE came on.
            bobCall.disconnect()
            XCTAssertEqual(
                delegate.waitForEnd(), [.ringing, .connected, .reconnecting(.signalingConnectionDisconnected), .reconnected, .disconnected(nil)],
                "caller closes: \(callerCloses)")
            alice.client.shutdown()
            bob.client.shutdown()
            clients = []
        }
    }

    func testADeadWSSServerFailsRegistrationAndCallsAtOnce() throws {
        let port = try SIPPeerProcess.freePort()
        let client = try TestVoiceClient("alice") { configuration in
            configuration.outboundProxy = try? SIPServerAddress("wss://127.0.0.1:\(port)/sip")
            configuration.registers = true
            configuration.username = "alice"
            configuration.password = "secret"
        }
        clients.append(client)
        let started = Date()
        let registered = Locked<VoiceError?>(nil)
        client.listen(result: registered)
        let error = try XCTUnwrap(registered.withLock { $0 }, "registration fails")
        print("dead wss server: registration \(error.code.rawValue) \(error.failureReason ?? "")")
        XCTAssertEqual(error.code, .connectionError)
        let delegate = RecordingCallDelegate()
        _ = client.connect(to: "bob", delegate: delegate)
        XCTAssertEqual(delegate.waitForEnd(), [.failed(.connectionError)])
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "at once, not after transaction timeouts")
    }
}
