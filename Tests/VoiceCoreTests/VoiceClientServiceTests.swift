import Foundation
import Logging
import ServiceLifecycle
import VoiceService
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// A registered client run as a swift-service-lifecycle service behind Kamailio: graceful
/// shutdown hangs its call up with BYE, takes its registration back (the proxy no longer
/// finds it), and the service returns.
final class VoiceClientServiceTests: XCTestCase {
    func testGracefulShutdownHangsUpWithByeAndUnregisters() async throws {
        try TestPrerequisites.kamailio()
        let kamailio = try KamailioPeer(configuration: KamailioConfiguration())
        defer { kamailio.stop() }
        func client(_ user: String, _ password: String) throws -> TestVoiceClient {
            let proxy = try SIPServerAddress("sip:127.0.0.1:\(kamailio.configuration.udpPort)")
            return try TestVoiceClient(user) { configuration in
                configuration.domain = kamailio.configuration.realm
                configuration.outboundProxy = proxy
                configuration.registers = true
                configuration.username = user
                configuration.password = password
            }
        }
        let alice = try client("alice", "alicepass")
        let bob = try client("bob", "bobpass")
        defer { alice.client.shutdown() }
        let registration = Locked<VoiceError?>(VoiceError(.registrationError))
        let notifications = bob.listen(result: registration)
        XCTAssertNil(registration.withLock { $0 }, "bob registered")
        let bobDelegate = RecordingCallDelegate()
        notifications.onInvite.withLock {
            $0 = { invite in
                _ = invite.accept(options: AcceptOptions(callInvite: invite) { $0.delegateQueue = bobDelegate.queue }, delegate: bobDelegate)
            }
        }

        var logger = Logger(label: "test.service")
        logger.logLevel = .warning
        let group = ServiceGroup(services: [VoiceClientService(client: bob.client)], logger: logger)
        let running = Task { try await group.run() }

        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: "bob", delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected], "log:\n\(kamailio.process.logTail())")
        // Alice is connected once she sends the ACK; bob is once it reaches him.
        XCTAssertEqual(bobDelegate.wait(for: 1), [.connected])

        await group.triggerGracefulShutdown()
        try await running.value
        // The service returned only after the call had ended with bob's BYE and bob had unregistered.
        XCTAssertEqual(delegate.waitForEnd(), [.ringing, .connected, .disconnected(nil)])
        XCTAssertEqual(call.details.endCause, .remote, "bob hung up")
        XCTAssertEqual(bobDelegate.callbacks, [.connected, .disconnected(nil)])

        let again = RecordingCallDelegate()
        _ = alice.connect(to: "bob", delegate: again)
        let ended = again.waitForEnd()
        XCTAssertFalse(ended.contains(.connected), "bob is no longer registered: \(ended)")
        guard case .failed(let code)? = ended.last else { return XCTFail("\(ended)") }
        XCTAssertTrue([.notFound, .temporarilyUnavailable].contains(code), "\(code)")
    }
}
