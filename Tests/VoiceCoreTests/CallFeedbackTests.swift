import Foundation
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

final class CallFeedbackTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    func testScoreRawValues() {
        XCTAssertEqual(CallFeedbackScore.allCases.map(\.rawValue), [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(CallFeedbackScore(rawValue: 3), .threePoints)
        XCTAssertNil(CallFeedbackScore(rawValue: 6))
    }

    func testIssueNames() {
        XCTAssertEqual(
            CallFeedbackIssue.allCases.map(\.rawValue),
            ["not-reported", "dropped-call", "audio-latency", "one-way-audio", "choppy-audio", "noisy-call", "echo"])
    }

    func testNothingReportedIsReceivedNone() {
        let event = InsightsEvent.feedback(score: .notReported, issue: .notReported, callSid: "CA1", at: now)
        XCTAssertEqual(event.qualifiedName, "feedback:received-none")
        XCTAssertEqual(event.payload, [:])
        XCTAssertEqual(event.callSid, "CA1")
        XCTAssertEqual(event.timestamp, now)
    }

    func testScoreAndIssue() {
        let event = InsightsEvent.feedback(score: .twoPoints, issue: .choppyAudio, callSid: "CA1", at: now)
        XCTAssertEqual(event.qualifiedName, "feedback:received")
        XCTAssertEqual(event.level, .info)
        XCTAssertEqual(event.payload, ["score": 2, "issue": "choppy-audio"])
    }

    func testScoreOnlyOrIssueOnlyIsStillReceived() {
        let scoreOnly = InsightsEvent.feedback(score: .fivePoints, issue: .notReported, callSid: nil, at: now)
        XCTAssertEqual(scoreOnly.qualifiedName, "feedback:received")
        XCTAssertEqual(scoreOnly.payload, ["score": 5, "issue": .null])
        let issueOnly = InsightsEvent.feedback(score: .notReported, issue: .echo, callSid: nil, at: now)
        XCTAssertEqual(issueOnly.qualifiedName, "feedback:received")
        XCTAssertEqual(issueOnly.payload, ["score": .null, "issue": "echo"])
    }

    func testEveryCombinationNamesTheRightEvent() {
        for score in CallFeedbackScore.allCases {
            for issue in CallFeedbackIssue.allCases {
                let name = InsightsEvent.feedback(score: score, issue: issue, callSid: nil, at: now).name
                let none = score == .notReported && issue == .notReported
                XCTAssertEqual(name, none ? "received-none" : "received", "\(score) \(issue)")
            }
        }
    }
}
