import XCTest

@testable import VoiceRTP
import VoiceMediaTypes
import VoiceSupport

final class DTMFSequenceTests: XCTestCase {
    func testEachDigitIsAToneAndAGapAndWIsAPause() {
        var sequence = DTMFSequence(Array("1w#"))
        XCTAssertFalse(sequence.isFinished)
        var steps: [DTMFSequence.Step] = []
        while let step = sequence.next() { steps.append(step) }
        XCTAssertEqual(steps, [
            .tone("1", milliseconds: 100), .silence(milliseconds: 60),
            .silence(milliseconds: 500),
            .tone("#", milliseconds: 100), .silence(milliseconds: 60),
        ])
        XCTAssertTrue(sequence.isFinished)
        XCTAssertNil(sequence.next())
    }

    func testAnEmptySequenceIsFinished() {
        var sequence = DTMFSequence()
        XCTAssertTrue(sequence.isFinished)
        XCTAssertNil(sequence.next())
    }

    func testItIsNotFinishedUntilTheLastGapIsTaken() {
        var sequence = DTMFSequence(["5"])
        _ = sequence.next()
        XCTAssertFalse(sequence.isFinished, "the gap after the tone is still to come")
        XCTAssertEqual(sequence.next(), .silence(milliseconds: 60))
        XCTAssertTrue(sequence.isFinished)
    }
}
