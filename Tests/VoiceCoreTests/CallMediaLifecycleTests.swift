import XCTest

@testable import VoiceCore

/// The call's media lifecycle as a pure value: every path from the first negotiation to the
/// stopped media, with the actions the call must take at each step.
final class CallMediaLifecycleTests: XCTestCase {
    func testAnAnsweredCallConnectsOnceItsMediaRuns() {
        var m = CallMediaLifecycle()
        XCTAssertEqual(m.answered(), [.start(muted: false)])
        XCTAssertEqual(m.state, .starting(early: false, connectsWhenRunning: true))
        XCTAssertEqual(m.started(), [.watch, .connect])
        XCTAssertTrue(m.isRunning)
        XCTAssertEqual(m.release(), [.stop])
        XCTAssertTrue(m.isStopping)
        XCTAssertEqual(m.release(), [], "released once")
        XCTAssertEqual(m.stopped(), [.deliverWaitingCallbacks])
        XCTAssertEqual(m.state, .stopped)
        XCTAssertEqual(m.answered(), [], "nothing starts after the end")
    }

    func testEarlyMediaRunsMutedAndTheAnswerUnmutesTheSameStream() {
        var m = CallMediaLifecycle()
        XCTAssertEqual(m.earlyMediaArrived(), [.start(muted: true)])
        XCTAssertTrue(m.isEarly)
        XCTAssertEqual(m.earlyMediaArrived(), [], "a second 183 starts nothing")
        XCTAssertEqual(m.started(), [.watch], "running, not connected: not answered yet")
        XCTAssertEqual(m.answered(), [.answerEarlyMedia, .connect])
        XCTAssertFalse(m.isEarly)
        XCTAssertEqual(m.state, .running(early: false))
    }

    func testTheAnswerWhileEarlyMediaIsStillStartingConnectsWhenItRuns() {
        var m = CallMediaLifecycle()
        _ = m.earlyMediaArrived()
        XCTAssertEqual(m.answered(), [.answerEarlyMedia])
        XCTAssertEqual(m.started(), [.watch, .connect])
    }

    func testTheCalleesMediaStartsWithItsAnswerAndConnectsOnTheACK() {
        var m = CallMediaLifecycle()
        XCTAssertEqual(m.answerSent(), [.start(muted: false)], "the user accepted: not muted")
        XCTAssertTrue(m.isEarly, "not up before the ACK")
        XCTAssertEqual(m.answerSent(), [], "a retransmitted 2xx starts nothing")
        XCTAssertEqual(m.started(), [.watch], "running, not connected: no ACK yet")
        XCTAssertEqual(m.answered(), [.answerEarlyMedia, .connect])
        XCTAssertEqual(m.state, .running(early: false))

        var slow = CallMediaLifecycle()
        _ = slow.answerSent()
        XCTAssertEqual(slow.answered(), [.answerEarlyMedia], "the ACK came first: it connects when the media runs")
        XCTAssertEqual(slow.started(), [.watch, .connect])

        var unacknowledged = CallMediaLifecycle()
        _ = unacknowledged.answerSent()
        XCTAssertEqual(unacknowledged.sessionEnded(), [], "no ACK ever came: it did not connect")
        XCTAssertEqual(unacknowledged.release(), [.stop], "and its media is stopped")
    }

    func testMediaThatFailsToStartFailsTheCallAndIsStillStopped() {
        var m = CallMediaLifecycle()
        _ = m.answered()
        XCTAssertEqual(m.failedToStart(), [.fail])
        XCTAssertEqual(m.started(), [], "a late start of failed media is ignored")
        XCTAssertEqual(m.release(), [.stop], "what was made is stopped")
        XCTAssertEqual(m.stopped(), [.deliverWaitingCallbacks])
    }

    func testACallThatEndsWhileItsMediaStartsDidConnect() {
        var m = CallMediaLifecycle()
        _ = m.answered()
        XCTAssertEqual(m.sessionEnded(), [.connect])
        XCTAssertEqual(m.sessionEnded(), [], "once")
        XCTAssertEqual(m.started(), [.watch], "no second connect")
        var unanswered = CallMediaLifecycle()
        _ = unanswered.earlyMediaArrived()
        XCTAssertEqual(unanswered.sessionEnded(), [], "never answered: it did not connect")
    }

    func testWithoutMediaAnAnsweredCallConnectsAndEndsAtOnce() {
        var m = CallMediaLifecycle()
        _ = m.answered()
        XCTAssertEqual(m.unavailable(), [.connect])
        XCTAssertEqual(m.state, .idle)
        XCTAssertEqual(m.release(), [], "nothing to stop")
        XCTAssertEqual(m.state, .stopped)
        XCTAssertFalse(m.isStopping)
    }

    func testACallThatEndsBeforeAnyMediaNeverStartsAny() {
        var m = CallMediaLifecycle()
        XCTAssertEqual(m.release(), [])
        XCTAssertEqual(m.earlyMediaArrived(), [])
        XCTAssertEqual(m.stopped(), [])
    }
}
