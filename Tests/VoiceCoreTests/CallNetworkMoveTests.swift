import VoiceEmbedded
import VoiceAddress
import Foundation
import VoiceNetwork
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore
@testable import VoiceMedia
@testable import VoiceSIPAgent

/// A client with automatic address selection moves a connected call to a new address, over
/// real sockets on loopback (127.0.0.2 is on `lo` like 127.0.0.1): the caller reports
/// reconnecting (53001) then reconnected, the callee follows the re-INVITE with no callback,
/// media flows both ways at the new address, and the callee's BYE reaches the new Contact.
final class CallNetworkMoveTests: XCTestCase {
    private var fixture: ReconnectTestCall?

    override func tearDown() {
        fixture?.shutdown()
        fixture = nil
    }

    private func loopback(_ address: String) -> NetworkCandidate {
        NetworkCandidate(
            address: IPAddress(address)!, prefixLength: 8, interfaceName: "lo", interfaceIndex: 1, type: .loopback,
            defaultRouteMetric: nil)
    }

    private func packetsReceived(_ call: Call) throws -> UInt64 {
        try onCallLoop(call) { $0.media?.stream?.stats.packetsReceived ?? 0 }
    }

    func testAConnectedCallMovesToTheNewAddressAndKeepsItsAudio() throws {
        let signal = TestSignals.speechLike(seconds: 2)
        let alice = try TestVoiceClient("alice", signal: signal) { $0.addressSelection = .automatic }
        XCTAssertEqual(alice.client.mediaBindHost, "::", "media carries both families")
        XCTAssertEqual(try alice.client.agent.currentAdvertisedHost.wait(), "127.0.0.1", "a loopback server: loopback")
        let f = try ReconnectTestCall(reconnection: CallReconnectionPolicy(), caller: alice, security: .automatic)
        fixture = f
        let bobRemote = { try onCallLoop(f.accepted) { $0.media?.stream?.control.remote.withLock { $0 }?.rtp.host } }
        XCTAssertEqual(try bobRemote(), "127.0.0.1")

        // The host renumbers: 127.0.0.2 is now the preferred address.
        let client = alice.client
        let moved = loopback("127.0.0.2")
        client.onLoop { client.networkChanged([moved]) }
        XCTAssertEqual(
            f.callerDelegate.wait(for: 4), [.ringing, .connected, .reconnecting(.signalingConnectionDisconnected), .reconnected])
        XCTAssertEqual(f.call.sid, f.accepted.sid, "the same call")
        XCTAssertEqual(try alice.client.agent.currentAdvertisedHost.wait(), "127.0.0.2")
        XCTAssertTrue(PollingWait.until(timeout: 5) { (try? bobRemote()) == "127.0.0.2" }, "bob sends to the new address")

        // Media flows both ways after the move.
        let (aliceBefore, bobBefore) = (try packetsReceived(f.call), try packetsReceived(f.accepted))
        XCTAssertTrue(PollingWait.until(timeout: 5) { ((try? self.packetsReceived(f.call)) ?? 0) > aliceBefore + 25 }, "alice hears bob")
        XCTAssertTrue(PollingWait.until(timeout: 5) { ((try? self.packetsReceived(f.accepted)) ?? 0) > bobBefore + 25 }, "bob hears alice")

        // The same address again changes nothing.
        client.onLoop { client.networkChanged([moved]) }
        XCTAssertFalse(PollingWait.until(timeout: 0.5) { f.callerDelegate.callbacks.count > 4 })
        XCTAssertEqual(f.calleeDelegate.callbacks, [.connected], "bob's address did not change: no callback")

        // Bob hangs up: his BYE goes to alice's new Contact.
        f.accepted.disconnect()
        XCTAssertEqual(f.callerDelegate.waitForEnd().last, .disconnected(nil))
    }

    /// With two addresses, a call offers a host candidate on each (the preferred one first)
    /// and its media runs over the preferred one.
    func testACallOffersAHostCandidateOnEachAddress() throws {
        let alice = try TestVoiceClient("alice", signal: TestSignals.speechLike(seconds: 2)) { $0.addressSelection = .automatic }
        let client = alice.client
        let both = [loopback("127.0.0.1"), loopback("127.0.0.2")]
        client.onLoop { client.networkChanged(both) }
        let f = try ReconnectTestCall(reconnection: CallReconnectionPolicy(), caller: alice, security: .automatic)
        fixture = f
        let offered = try onCallLoop(f.call) { core in
            core.handle.flatMap { client.agent.callInfo($0)?.localICE?.candidates.map { "\($0.kind.rawValue) \($0.address):\($0.port)" } } ?? []
        }
        XCTAssertEqual(offered.count, 2, "\(offered)")
        XCTAssertTrue(offered.first?.hasPrefix("host 127.0.0.1:") == true, "\(offered)")
        XCTAssertTrue(offered.last?.hasPrefix("host 127.0.0.2:") == true, "\(offered)")
        let before = try packetsReceived(f.accepted)
        XCTAssertTrue(PollingWait.until(timeout: 5) { ((try? self.packetsReceived(f.accepted)) ?? 0) > before + 25 }, "bob hears alice")
        let pair = try onCallLoop(f.call) { $0.media?.stats?.selectedCandidatePair?.description ?? "" }
        XCTAssertTrue(pair.hasPrefix("host 127.0.0.1:"), pair)
    }

    func testWithNoNetworkTheCallWaitsAndTheSameAddressBackReconnectsIt() throws {
        let alice = try TestVoiceClient("alice", signal: TestSignals.speechLike(seconds: 2)) { $0.addressSelection = .automatic }
        let f = try ReconnectTestCall(reconnection: CallReconnectionPolicy(), caller: alice, security: .automatic)
        fixture = f
        let client = alice.client
        // Only a remote-facing network would do for a remote server; here the server is on
        // loopback, so "no network" is no candidate at all.
        client.onLoop { client.networkChanged([]) }
        XCTAssertEqual(f.callerDelegate.wait(for: 3).last, .reconnecting(.signalingConnectionDisconnected))
        XCTAssertEqual(f.call.state, .reconnecting)
        let back = loopback("127.0.0.1")
        client.onLoop { client.networkChanged([back]) }
        XCTAssertEqual(f.callerDelegate.wait(for: 4).last, .reconnected, "the re-INVITE after the outage was answered")
        XCTAssertEqual(f.call.state, .connected)
    }

    /// A call we placed rings when our address goes away: the answer would go to that address
    /// (RFC 3261 §18.2.2), so the call is cancelled and fails with 53001 at once; the callee
    /// sees the invite cancelled.
    func testACallWePlacedThatRingsFailsWhenItsAddressGoes() throws {
        let alice = try TestVoiceClient("alice") { $0.addressSelection = .automatic }
        let bob = try TestVoiceClient("bob")
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        let notifications = bob.listen()
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: bob.address, delegate: delegate)
        XCTAssertEqual(delegate.wait(for: 1), [.ringing])
        let client = alice.client
        let moved = loopback("127.0.0.2")
        client.onLoop { client.networkChanged([moved]) }
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .failed(.signalingConnectionDisconnected)])
        XCTAssertEqual(call.state, .disconnected)
        XCTAssertTrue(PollingWait.until(timeout: 5) { notifications.cancelled.withLock { $0.count } == 1 }, "bob saw the CANCEL")
    }
}
