import VoiceSupport
import XCTest

@testable import VoiceSIPAgent

/// RFC 8305 racing of a server's IPv6 and IPv4 addresses, as a value in virtual time.
final class SIPHappyEyeballsTests: XCTestCase {
    private func target(_ address: String, port: Int = 5060) -> SIPServerTarget {
        SIPServerTarget(transport: .udp, address: address, port: port, host: "sip.example.com", serverName: "sip.example.com")
    }

    private lazy var six1 = target("2001:db8::1")
    private lazy var six2 = target("2001:db8::2")
    private lazy var four1 = target("192.0.2.1")
    private lazy var four2 = target("192.0.2.2")

    func testTheFamiliesAreInterleavedIPv6FirstEachInItsOrder() {
        XCTAssertEqual(SIPHappyEyeballs.interleaved([four1, four2, six1, six2]), [six1, four1, six2, four2])
        XCTAssertEqual(SIPHappyEyeballs.interleaved([four1, six1, four2]), [six1, four1, four2])
        XCTAssertTrue(SIPHappyEyeballs.isWorthRacing([four1, six1]))
        XCTAssertFalse(SIPHappyEyeballs.isWorthRacing([four1, four2]))
        XCTAssertFalse(SIPHappyEyeballs.isWorthRacing([]))
    }

    /// IPv6 does not answer: IPv4 starts 250 ms later and wins; IPv6 is abandoned.
    func testASilentIPv6LetsIPv4StartAfterTheDelayAndWin() {
        var race = SIPHappyEyeballs(targets: [four1, six1])
        let t0 = MediaTime.seconds(100)
        XCTAssertEqual(race.start(now: t0), [.probe(six1)])
        XCTAssertEqual(race.nextDeadline, t0 + .milliseconds(250))
        XCTAssertEqual(race.tick(now: t0 + .milliseconds(249)), [])
        XCTAssertEqual(race.tick(now: t0 + .milliseconds(250)), [.probe(four1)])
        XCTAssertEqual(race.nextDeadline, t0 + .seconds(2), "nothing left to start: only the give-up is due")
        XCTAssertEqual(race.answered(four1, now: t0 + .milliseconds(251)), [.abandon(six1), .won(four1)])
        XCTAssertEqual(race.phase, .finished(winner: four1))
        XCTAssertEqual(race.answered(six1, now: t0 + .seconds(1)), [], "a late answer changes nothing")
    }

    func testAnIPv6AnswerBeforeTheDelayMeansIPv4IsNeverTried() {
        var race = SIPHappyEyeballs(targets: [four1, six1])
        XCTAssertEqual(race.start(now: .zero), [.probe(six1)])
        XCTAssertEqual(race.answered(six1, now: .milliseconds(30)), [.won(six1)])
        XCTAssertEqual(race.tick(now: .seconds(1)), [])
        XCTAssertNil(race.nextDeadline)
    }

    /// A failure (an ICMP error, a refused connection) starts the next one at once.
    func testAFailureStartsTheNextTargetAtOnce() {
        var race = SIPHappyEyeballs(targets: [four1, four2, six1, six2])
        XCTAssertEqual(race.start(now: .zero), [.probe(six1)])
        XCTAssertEqual(race.failed(six1, now: .milliseconds(5)), [.probe(four1)])
        XCTAssertEqual(race.nextDeadline, .milliseconds(255))
        XCTAssertEqual(race.tick(now: .milliseconds(255)), [.probe(six2)])
        XCTAssertEqual(race.tick(now: .milliseconds(505)), [.probe(four2)])
        XCTAssertEqual(race.answered(six2, now: .milliseconds(506)), [.abandon(four1), .abandon(four2), .won(six2)])
    }

    func testWhenEveryTargetFailsTheRaceIsExhausted() {
        var race = SIPHappyEyeballs(targets: [four1, six1])
        _ = race.start(now: .zero)
        XCTAssertEqual(race.tick(now: .milliseconds(250)), [.probe(four1)])
        XCTAssertEqual(race.failed(four1, now: .milliseconds(300)), [], "IPv6 is still out")
        XCTAssertEqual(race.failed(six1, now: .seconds(4)), [.exhausted])
        XCTAssertEqual(race.phase, .finished(winner: nil))
        XCTAssertEqual(race.failed(six1, now: .seconds(5)), [])
        var none = SIPHappyEyeballs(targets: [])
        XCTAssertEqual(none.start(now: .zero), [.exhausted])
    }

    func testOutcomesOfTargetsNotProbedAreIgnored() {
        var race = SIPHappyEyeballs(targets: [four1, six1])
        _ = race.start(now: .zero)
        XCTAssertEqual(race.answered(four1, now: .milliseconds(10)), [], "four1 was never probed")
        XCTAssertEqual(race.failed(four2, now: .milliseconds(10)), [])
        XCTAssertEqual(race.phase, .racing(next: 1, pending: [six1], deadline: .milliseconds(250)))
    }

    /// Nobody answers (a server that ignores OPTIONS): the race gives up at its limit, and the
    /// driver then sends the request to the targets in turn.
    func testARaceNobodyAnswersGivesUpAtItsLimit() {
        var race = SIPHappyEyeballs(targets: [four1, six1])
        _ = race.start(now: .zero)
        _ = race.tick(now: .milliseconds(250))
        XCTAssertEqual(race.tick(now: .milliseconds(1_999)), [])
        XCTAssertEqual(race.tick(now: .seconds(2)), [.abandon(six1), .abandon(four1), .exhausted])
        XCTAssertEqual(race.phase, .finished(winner: nil))
        XCTAssertNil(race.nextDeadline)
        XCTAssertEqual(race.answered(four1, now: .seconds(3)), [])
    }
}
