import Foundation
import VoiceEmbedded
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Transfer between three of our own clients, in virtual time: a blind transfer the transferee
/// accepts, and an attended one whose INVITE with Replaces takes over the target's call. The
/// new calls' audio is checked with each client's tone (alice 1 kHz, bob 660 Hz, carol 440 Hz).
final class CallTransferVirtualTests: VirtualTimeTestCase {
    private var clients: [TestVoiceClient] = []

    override func tearDown() {
        for client in clients { client.client.shutdown() }
        clients = []
        super.tearDown()
    }

    private func client(_ name: String, tone: Double) throws -> TestVoiceClient {
        let client = try TestVoiceClient(name, signal: ConnectedCallPair.tone(tone), world: world)
        clients.append(client)
        return client
    }

    /// `client` answers every call with the returned delegate; the last call it answered.
    private func answering(_ client: TestVoiceClient, acceptingWith placed: TransferRecordingDelegate? = nil) -> (TransferRecordingDelegate, LockedBox<Call?>) {
        let delegate = TransferRecordingDelegate(acceptingWith: placed)
        return (delegate, client.listen().acceptEach(withTransferDelegate: delegate))
    }

    /// bob hands alice to carol: alice accepts and calls carol; bob hears the transfer go and
    /// succeed, then his call ends as transferred, and alice's with him ends by his BYE.
    func testABlindTransferHandsTheCallerToTheTarget() throws {
        let alice = try client("alice", tone: 1_000)
        let bob = try client("bob", tone: 660)
        let carol = try client("carol", tone: 440)
        let placed = TransferRecordingDelegate()
        let aliceDelegate = TransferRecordingDelegate(acceptingWith: placed)
        let (bobDelegate, bobCalls) = answering(bob)
        let (carolDelegate, _) = answering(carol)
        let call = alice.connect(to: bob.address, transferDelegate: aliceDelegate)
        XCTAssertTrue(bobDelegate.wait { $0.contains("connected") })
        let bobCall = try XCTUnwrap(bobCalls.value)

        bobCall.transfer(to: carol.address)
        XCTAssertTrue(bobDelegate.waitForProgress(.succeeded), "\(bobDelegate.progress)")
        XCTAssertEqual(bobDelegate.progress, [.trying, .ringing, .succeeded])
        XCTAssertTrue(bobDelegate.wait { $0.contains("disconnected(nil)") })
        XCTAssertEqual(bobCall.details.endCause, .transferred)
        XCTAssertTrue(aliceDelegate.wait { $0.contains("disconnected(nil)") }, "bob hung up the transferred call")
        XCTAssertEqual(call.details.endCause, .remote)
        let request = try XCTUnwrap(aliceDelegate.requests.withLock { $0.first })
        XCTAssertEqual(request.referredBy.map { $0.hasPrefix("sip:bob@") }, true)
        XCTAssertTrue(placed.wait { $0.contains("connected") } && carolDelegate.wait { $0.contains("connected") })
        XCTAssertGreaterThan(carol.hears(1_000), 2_000, "carol hears alice")
        XCTAssertGreaterThan(alice.hears(440), 2_000, "alice hears carol")
    }

    /// alice talks to bob and to carol, and joins them: bob calls carol with Replaces, carol's
    /// call with alice is replaced by it (the app sees the new call), and alice's two calls end.
    func testAnAttendedTransferReplacesTheTargetsCall() throws {
        let alice = try client("alice", tone: 1_000)
        let bob = try client("bob", tone: 660)
        let carol = try client("carol", tone: 440)
        let placed = TransferRecordingDelegate()
        let (bobDelegate, _) = answering(bob, acceptingWith: placed)
        let (carolDelegate, _) = answering(carol)
        let toBob = TransferRecordingDelegate(), toCarol = TransferRecordingDelegate()
        let first = alice.connect(to: bob.address, transferDelegate: toBob)
        let second = alice.connect(to: carol.address, transferDelegate: toCarol)
        XCTAssertTrue(toBob.wait { $0.contains("connected") } && toCarol.wait { $0.contains("connected") })

        first.transfer(replacing: second)
        XCTAssertTrue(placed.wait { $0.contains("connected") }, "\(placed.callbacks)")
        XCTAssertEqual(bobDelegate.requests.withLock { $0.first?.isAttended }, true)
        XCTAssertTrue(carolDelegate.wait { $0.contains("replaced") }, "\(carolDelegate.callbacks)")
        XCTAssertTrue(toBob.waitForProgress(.succeeded))
        XCTAssertTrue(toBob.wait { $0.contains("disconnected(nil)") } && toCarol.wait { $0.contains("disconnected(nil)") })
        XCTAssertEqual(first.details.endCause, .transferred)
        XCTAssertEqual(second.details.endCause, .remote, "carol hung up the call she replaced")
        let replacement = try XCTUnwrap(carolDelegate.replacement.withLock { $0 })
        XCTAssertTrue(PollingWait.until(timeout: 5) { replacement.state == .connected })
        XCTAssertGreaterThan(carol.hears(660), 2_000, "carol hears bob")
        XCTAssertGreaterThan(bob.hears(440), 2_000, "bob hears carol")
    }
}
