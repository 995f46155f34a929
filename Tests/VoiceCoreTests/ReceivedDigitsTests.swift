import VoiceSupport
import XCTest

@testable import VoiceCore

/// One report per key press, whichever way and however often the press arrives.
final class ReceivedDigitsTests: XCTestCase {
    private func ms(_ value: Int64) -> MediaTime { .milliseconds(value) }

    func testOneTransportIsReportedExactlyAsItArrives() {
        var digits = ReceivedDigits()
        var reported = ""
        for (i, digit) in "1122#".enumerated() {
            if let d = digits.receive(digit, duration: 0.1, via: .rtpEvent, at: ms(Int64(i) * 100)) { reported.append(d.digit) }
        }
        XCTAssertEqual(reported, "1122#", "a key pressed twice is two presses")
        XCTAssertEqual(digits.twinsDropped, 0)
    }

    func testAPressSentBothWaysIsReportedOnceWhicheverComesFirst() {
        var digits = ReceivedDigits()
        XCTAssertEqual(digits.receive("5", duration: 0.16, via: .sipInfo, at: ms(0))?.transport, .sipInfo)
        XCTAssertNil(digits.receive("5", duration: 0.1, via: .rtpEvent, at: ms(150)), "the RTP event of the same press")
        XCTAssertEqual(digits.receive("5", duration: 0.1, via: .rtpEvent, at: ms(400))?.transport, .rtpEvent, "the next press")
        XCTAssertNil(digits.receive("5", duration: 0.16, via: .sipInfo, at: ms(450)), "its INFO, late")
        XCTAssertEqual(digits.twinsDropped, 2)
    }

    func testTwinsPairInOrderEvenWhenOneWayRunsAhead() {
        var digits = ReceivedDigits()
        var reported = ""
        // INFO for 1, 2, 3 arrive before any of the RTP events.
        let arrivals: [(Character, CallDigit.Transport, Int64)] = [
            ("1", .sipInfo, 0), ("2", .sipInfo, 10), ("3", .sipInfo, 20), ("1", .rtpEvent, 200), ("2", .rtpEvent, 360), ("3", .rtpEvent, 520),
        ]
        for (digit, transport, at) in arrivals {
            if let d = digits.receive(digit, duration: 0.1, via: transport, at: ms(at)) { reported.append(d.digit) }
        }
        XCTAssertEqual(reported, "123")
    }

    func testALostTwinDoesNotSwallowTheNextPressOfAnotherKey() {
        var digits = ReceivedDigits()
        var reported = ""
        // The INFO of the 1 was lost: the RTP 1 stays unpaired; the 2 comes both ways.
        let arrivals: [(Character, CallDigit.Transport, Int64)] = [("1", .rtpEvent, 0), ("2", .sipInfo, 300), ("2", .rtpEvent, 450)]
        for (digit, transport, at) in arrivals {
            if let d = digits.receive(digit, duration: 0.1, via: transport, at: ms(at)) { reported.append(d.digit) }
        }
        XCTAssertEqual(reported, "12")
    }

    func testATwinOutsideTheWindowIsANewPress() {
        var digits = ReceivedDigits()
        XCTAssertNotNil(digits.receive("9", duration: 0.1, via: .sipInfo, at: ms(0)))
        let later = ReceivedDigits.pairingWindow + ms(1)
        XCTAssertNotNil(digits.receive("9", duration: 0.1, via: .rtpEvent, at: later), "too late to be the same press")
    }

    func testAFloodOfUnpairedDigitsKeepsABoundedList() {
        var digits = ReceivedDigits()
        for i in 0..<1_000 { _ = digits.receive("1", duration: 0.1, via: .rtpEvent, at: ms(Int64(i))) }
        XCTAssertNil(digits.receive("1", duration: 0.1, via: .sipInfo, at: ms(1_000)), "paired with a waiting one")
        var pairs = 1
        while digits.receive("1", duration: 0.1, via: .sipInfo, at: ms(1_000)) == nil { pairs += 1 }
        XCTAssertEqual(pairs, ReceivedDigits.maximumWaiting, "at most this many waited")
    }
}
