import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Sinch's "established" next to Twilio's "connected": a call connects when it is answered, and
/// its media is established once audio is seen flowing both ways (the peer's RTP arrives and
/// its RTCP reports receiving ours).
final class CallMediaEstablishedTests: VirtualTimeTestCase {

    func testMediaIsEstablishedAfterTheCallConnectsOnBothSides() throws {
        let alice = try TestVoiceClient("alice", signal: ConnectedCallPair.tone(440), world: world)
        let bob = try TestVoiceClient("bob", signal: ConnectedCallPair.tone(660), world: world)
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        let calleeDelegate = RecordingCallDelegate()
        _ = bob.listen().acceptEach(with: calleeDelegate)
        let delegate = RecordingCallDelegate()
        let call = alice.connect(to: bob.address, delegate: delegate)
        let order = Locked<[String]>([])
        let reader = Task {
            for await event in call.events {
                switch event {
                case .connected: order.withLock { $0.append("connected") }
                case .mediaEstablished: order.withLock { $0.append("mediaEstablished") }
                default: break
                }
            }
        }
        defer { reader.cancel() }
        XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected])
        XCTAssertTrue(PollingWait.until(timeout: 10) { delegate.mediaEstablished.withLock { $0 } != nil && calleeDelegate.mediaEstablished.withLock { $0 } != nil })
        let established = try XCTUnwrap(delegate.mediaEstablished.withLock { $0 })
        XCTAssertEqual(established.state, .connected)
        let connectedAt = try XCTUnwrap(established.details.connectedAt)
        let mediaAt = try XCTUnwrap(established.details.mediaEstablishedAt)
        XCTAssertGreaterThanOrEqual(mediaAt, connectedAt)
        XCTAssertLessThan(mediaAt.timeIntervalSince(connectedAt), 6, "within the first RTCP reports")
        XCTAssertTrue(PollingWait.until(timeout: 5) { order.withLock { $0 } == ["connected", "mediaEstablished"] }, "\(order.withLock { $0 })")
        call.disconnect()
        delegate.waitForEnd()
    }
}
