import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceCore
import VoiceMediaTypes

/// `getStats`/`stats()` and `postFeedback` over a real call.
final class CallActionsStatsFeedbackTests: VirtualTimeTestCase {

    func testStatsReportTheRunningAudioTracks() async throws {
        // An async test runs off the thread the world's loop belongs to: real time here.
        world.close()
        let pair = try ConnectedCallPair()
        defer { pair.close() }
        try pair.connect()
        let caller = try XCTUnwrap(pair.caller)
        // Wait for enough media and for the first RTCP round trip.
        var report: CallStatsReport?
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            report = await caller.stats()
            if let r = report, (r.remoteAudioTrack?.packetsReceived ?? 0) > 50, r.roundTripTimeMs != nil,
               (r.remoteAudioTrack?.audioLevel ?? 0) > 0, (r.localAudioTrack?.audioLevel ?? 0) > 0 { break }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        let stats = try XCTUnwrap(report)
        XCTAssertEqual(stats.callSid, caller.sid)
        let local = try XCTUnwrap(stats.localAudioTrack)
        let remote = try XCTUnwrap(stats.remoteAudioTrack)
        XCTAssertEqual(local.codec, .opus())
        XCTAssertEqual(remote.codec, .opus())
        XCTAssertGreaterThan(local.packetsSent, 50)
        XCTAssertGreaterThan(local.bytesSent, local.packetsSent)
        XCTAssertGreaterThan(remote.packetsReceived, 50)
        XCTAssertGreaterThan(remote.bytesReceived, remote.packetsReceived)
        XCTAssertEqual(remote.packetsLost, 0, "loopback loses nothing")
        XCTAssertGreaterThan(local.audioLevel, 1_000, "alice captures a loud tone")
        XCTAssertGreaterThan(remote.audioLevel, 1_000, "alice plays bob's loud tone")
        XCTAssertGreaterThanOrEqual(remote.jitterMs, 0)
        XCTAssertLessThan(remote.jitterMs, 30)
        let rtt = try XCTUnwrap(stats.roundTripTimeMs)
        XCTAssertLessThan(rtt, 100, "loopback")
        let mos = try XCTUnwrap(remote.mos)
        XCTAssertGreaterThan(mos, 4.0)
        XCTAssertLessThanOrEqual(mos, 4.5)

        // The block form delivers on the delegate queue.
        let delivered = expectation(description: "getStats")
        let queue = pair.callerDelegate.queue
        caller.getStats { report in
            dispatchPrecondition(condition: .onQueue(queue))
            XCTAssertGreaterThan(report?.remoteAudioTrack?.packetsReceived ?? 0, 50)
            delivered.fulfill()
        }
        await fulfillment(of: [delivered], timeout: 5)

        caller.disconnect()
        XCTAssertEqual(pair.callerDelegate.waitForEnd().last, .disconnected(nil))
        let afterEnd = await caller.stats()
        XCTAssertNil(afterEnd, "no media once disconnected")
        let none = expectation(description: "getStats after the end")
        caller.getStats { report in
            XCTAssertNil(report)
            none.fulfill()
        }
        await fulfillment(of: [none], timeout: 5)
    }

    func testPostFeedbackPublishesReceivedOrReceivedNone() throws {
        let pair = try ConnectedCallPair(world: world)
        defer { pair.close() }
        try pair.connect()
        let caller = try XCTUnwrap(pair.caller)
        caller.postFeedback(score: .fivePoints, issue: .echo)
        caller.postFeedback(score: .notReported, issue: .choppyAudio)
        caller.postFeedback(score: .notReported, issue: .notReported)
        let insights = pair.alice.insights
        XCTAssertTrue(PollingWait.until(timeout: 5) { insights.events(in: .feedback).count == 3 })
        let feedback = insights.events(in: .feedback)
        XCTAssertEqual(feedback.map(\.name), ["received", "received", "received-none"])
        XCTAssertEqual(feedback[0].payload, ["score": .int(5), "issue": .string("echo")])
        XCTAssertEqual(feedback[1].payload, ["score": .null, "issue": .string("choppy-audio")])
        XCTAssertEqual(feedback[2].payload, [:])
        XCTAssertEqual(Set(feedback.map(\.callSid)), [caller.sid])
    }

    func testFeedbackCanBePostedOnceTheCallHasEnded() throws {
        let pair = try ConnectedCallPair(world: world)
        defer { pair.close() }
        try pair.connect()
        let caller = try XCTUnwrap(pair.caller)
        caller.disconnect()
        XCTAssertEqual(pair.callerDelegate.waitForEnd().last, .disconnected(nil))
        caller.postFeedback(score: .twoPoints, issue: .droppedCall)
        let insights = pair.alice.insights
        XCTAssertTrue(PollingWait.until(timeout: 5) { !insights.events(in: .feedback).isEmpty })
        XCTAssertEqual(insights.events(in: .feedback).map(\.payload), [["score": .int(2), "issue": .string("dropped-call")]])
        XCTAssertEqual(insights.events(in: .feedback).first?.callSid, caller.sid)
    }
}
