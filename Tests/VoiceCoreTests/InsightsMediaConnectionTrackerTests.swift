import Foundation
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

final class InsightsMediaConnectionTrackerTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func names(
        _ tracker: inout InsightsMediaConnectionTracker, _ input: InsightsMediaConnectionTracker.Input
    ) -> [String] {
        tracker.handle(input, callSid: "CA1", at: now).map(\.qualifiedName)
    }

    func testFullLifecycleWithAMediaInterruption() {
        var t = InsightsMediaConnectionTracker()
        XCTAssertNil(t.state)
        XCTAssertEqual(
            names(&t, .created),
            ["pc-connection-state:new", "ice-connection-state:new", "ice-gathering-state:new"])
        XCTAssertEqual(
            names(&t, .started(localAddress: "127.0.0.1:4000", remoteAddress: "127.0.0.1:5000")),
            [
                "ice-gathering-state:complete", "ice-candidate:ice-candidate", "pc-connection-state:connecting",
                "ice-connection-state:checking",
            ])
        XCTAssertEqual(t.state, .connecting)
        let connected = t.handle(.mediaReceived, callSid: "CA1", at: now)
        XCTAssertEqual(
            connected.map(\.qualifiedName),
            ["ice-candidate:selected-ice-candidate-pair", "pc-connection-state:connected", "ice-connection-state:connected"])
        XCTAssertEqual(connected[0].payload["local_candidate"]?.description,
                       #"{"address":"127.0.0.1:4000","candidate_type":"host","transport":"udp"}"#)
        XCTAssertEqual(names(&t, .mediaReceived), [])
        XCTAssertEqual(names(&t, .mediaSilent), ["pc-connection-state:disconnected", "ice-connection-state:disconnected"])
        XCTAssertEqual(names(&t, .mediaSilent), [])
        XCTAssertEqual(names(&t, .mediaReceived), ["pc-connection-state:connected", "ice-connection-state:connected"])
        XCTAssertEqual(names(&t, .closed), ["pc-connection-state:closed", "ice-connection-state:closed"])
        XCTAssertEqual(t.state, .closed)
        for input in [InsightsMediaConnectionTracker.Input.created, .mediaReceived, .mediaSilent, .failed, .closed] {
            XCTAssertEqual(names(&t, input), [], "\(input) after closed")
        }
    }

    func testStartedBeforeCreatedEmitsTheCreationEventsFirst() {
        var t = InsightsMediaConnectionTracker()
        XCTAssertEqual(
            names(&t, .started(localAddress: "a", remoteAddress: "b")),
            [
                "pc-connection-state:new", "ice-connection-state:new", "ice-gathering-state:new",
                "ice-gathering-state:complete", "ice-candidate:ice-candidate", "pc-connection-state:connecting",
                "ice-connection-state:checking",
            ])
        XCTAssertEqual(names(&t, .started(localAddress: "a", remoteAddress: "b")), [])
    }

    func testMediaThatNeverArrivesFailsThenCloses() {
        var t = InsightsMediaConnectionTracker()
        _ = names(&t, .started(localAddress: "a", remoteAddress: "b"))
        XCTAssertEqual(names(&t, .mediaSilent), [])
        let failed = t.handle(.failed, callSid: nil, at: now)
        XCTAssertEqual(failed.map(\.qualifiedName), ["pc-connection-state:failed", "ice-connection-state:failed"])
        XCTAssertEqual(failed.map(\.level), [.error, .error])
        XCTAssertEqual(names(&t, .failed), [])
        XCTAssertEqual(names(&t, .mediaReceived), [])
        XCTAssertEqual(names(&t, .closed), ["pc-connection-state:closed", "ice-connection-state:closed"])
    }

    func testNothingBeforeCreationExceptCreation() {
        var t = InsightsMediaConnectionTracker()
        XCTAssertEqual(names(&t, .mediaReceived), [])
        XCTAssertEqual(names(&t, .failed), [])
        XCTAssertEqual(names(&t, .closed), [])
        XCTAssertNil(t.state)
    }

    func testCompletedAndGatheringNeverFire() {
        var t = InsightsMediaConnectionTracker()
        var all: [String] = []
        let inputs: [InsightsMediaConnectionTracker.Input] = [
            .created, .started(localAddress: "a", remoteAddress: "b"), .mediaReceived, .mediaSilent, .mediaReceived,
            .failed, .closed,
        ]
        for input in inputs { all += names(&t, input) }
        XCTAssertFalse(all.contains("ice-connection-state:completed"))
        XCTAssertFalse(all.contains("ice-gathering-state:gathering"))
    }
}
