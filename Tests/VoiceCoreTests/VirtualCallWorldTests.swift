import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestAudio
import VoiceSupport
import XCTest

@testable import VoiceCore

/// The virtual-time world the call tests run in: real clients, real media, no sockets, no sleeps.
final class VirtualCallWorldTests: XCTestCase {
    func testTenSecondsOfACallWithRealMediaRunInVirtualTime() throws {
        let world = VirtualCallWorld()
        defer { world.close() }
        let wallStart = Date()
        let pair = try ConnectedCallPair(world: world)
        defer { pair.close() }
        try pair.connect()
        let connectedAt = world.elapsedMilliseconds
        PollingWait.sleep(10)
        XCTAssertEqual(world.elapsedMilliseconds - connectedAt, 10_000, "virtual time moved by what the test waited")
        let caller = try XCTUnwrap(pair.caller)
        let stats = try XCTUnwrap(ConnectedCallPair.onCore(caller) { $0?.media?.stream?.stats })
        XCTAssertEqual(Double(stats.packetsReceived), 500, accuracy: 20, "50 packets a second came in (less a few on probation)")
        XCTAssertEqual(stats.srtpAuthFailures, 0)
        XCTAssertEqual(stats.codec, "opus")
        let heard = SpectralSimilarity(playedInALoop: ConnectedCallPair.tone(660), in: Array(pair.alice.device.recordedSamples.suffix(48_000 * 5)))
        XCTAssertGreaterThan(heard.score, 0.9, "alice hears bob's tone: \(heard)")
        let wall = Date().timeIntervalSince(wallStart)
        print("ten seconds of call in virtual time took \(String(format: "%.2f", wall)) s")
    }
}
