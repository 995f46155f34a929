import VoiceMediaTypes
import VoiceSupport
import XCTest
@testable import VoiceSIP

final class SIPTransactionNonInviteClientTests: XCTestCase {
    private typealias Machine = SIPNonInviteClientTransaction<String>
    private func ms(_ value: Int64) -> MediaTime { .milliseconds(value) }

    private func startedTable(reliable: Bool) throws -> SIPTransactionTable<String> {
        var table = SIPTransactionTable<String>()
        let (_, outputs) = try table.sendRequest(
            "REGISTER", method: "REGISTER", branch: "z9hG4bKnashds7", reliableTransport: reliable, now: .zero)
        XCTAssertEqual(outputs.map(\.action), [.transmit("REGISTER")])
        return table
    }

    private func respond(_ table: inout SIPTransactionTable<String>, _ code: Int, at time: Int64) -> [SIPTransactionAction<String>] {
        guard
            case .matched(let outputs) = table.receiveResponse(
                "\(code)", statusCode: code, branch: "z9hG4bKnashds7", cseqMethod: "REGISTER", now: ms(time))
        else {
            XCTFail("response \(code) did not match")
            return []
        }
        return outputs.map(\.action)
    }

    func testStartSendsAndStartsTimersEAndF() {
        var machine = Machine(request: "BYE", reliableTransport: false)
        XCTAssertEqual(machine.start(), [.transmit("BYE"), .startTimer(.e, after: ms(500)), .startTimer(.f, after: ms(32_000))])
        XCTAssertEqual(machine.state, .trying(retransmitInterval: ms(500)))
    }

    func testTimerEDoublesUpToT2UntilTimerF() throws {
        var table = try startedTable(reliable: false)
        let events = table.run(until: ms(60_000))
        // RFC 3261 §17.1.2.2: 0.5, 1, 2, 4, 4, 4 ... s intervals; F at 32 s.
        XCTAssertEqual(events.transmitTimes, [500, 1_500, 3_500, 7_500, 11_500, 15_500, 19_500, 23_500, 27_500, 31_500])
        XCTAssertEqual(
            events.suffix(2),
            [
                SIPTransactionTestEvent(milliseconds: 32_000, action: .timedOut(.f)),
                SIPTransactionTestEvent(milliseconds: 32_000, action: .terminated),
            ])
    }

    func testProvisionalMovesTimerEToT2() throws {
        var table = try startedTable(reliable: false)
        XCTAssertEqual(table.run(until: ms(600)).transmitTimes, [500])
        XCTAssertEqual(respond(&table, 100, at: 600), [.deliverResponse("100", statusCode: 100)])
        let events = table.run(until: ms(60_000))
        // The pending E (due at 1.5 s) still fires; from then on every T2.
        XCTAssertEqual(events.transmitTimes, [1_500, 5_500, 9_500, 13_500, 17_500, 21_500, 25_500, 29_500])
        XCTAssertEqual(events.last, SIPTransactionTestEvent(milliseconds: 32_000, action: .terminated))
        XCTAssertTrue(events.contains(SIPTransactionTestEvent(milliseconds: 32_000, action: .timedOut(.f))))
    }

    func testFinalResponseCompletesAndAbsorbsRetransmissionsUntilTimerK() throws {
        var table = try startedTable(reliable: false)
        XCTAssertEqual(respond(&table, 100, at: 100), [.deliverResponse("100", statusCode: 100)])
        XCTAssertEqual(respond(&table, 180, at: 200), [.deliverResponse("180", statusCode: 180)])
        XCTAssertEqual(respond(&table, 401, at: 700), [.deliverResponse("401", statusCode: 401)])
        XCTAssertEqual(respond(&table, 401, at: 900), [], "retransmitted final response absorbed")
        XCTAssertEqual(respond(&table, 200, at: 950), [])
        // No retransmissions after the final response; K = T4 = 5 s.
        XCTAssertEqual(table.run(until: ms(60_000)), [SIPTransactionTestEvent(milliseconds: 5_700, action: .terminated)])
    }

    func testReliableTransportSkipsTimerEAndK() throws {
        var table = try startedTable(reliable: true)
        XCTAssertEqual(table.runningTimerCount, 1, "only timer F runs over TCP")
        XCTAssertEqual(respond(&table, 200, at: 50), [.deliverResponse("200", statusCode: 200), .terminated])
        XCTAssertEqual(table.count, 0)
    }

    func testTimerFOverReliableTransportTimesOut() throws {
        var table = try startedTable(reliable: true)
        XCTAssertEqual(
            table.run(until: ms(40_000)),
            [
                SIPTransactionTestEvent(milliseconds: 32_000, action: .timedOut(.f)),
                SIPTransactionTestEvent(milliseconds: 32_000, action: .terminated),
            ])
    }

    func testTransportErrorAndIgnoredInputs() {
        var machine = Machine(request: "OPTIONS", reliableTransport: false)
        XCTAssertEqual(machine.timerFired(.e), [], "nothing before start")
        _ = machine.start()
        XCTAssertEqual(machine.receiveResponse("x", statusCode: 0), [])
        XCTAssertEqual(machine.receiveResponse("x", statusCode: 1_000), [])
        XCTAssertEqual(machine.timerFired(.k), [])
        XCTAssertEqual(machine.timerFired(.a), [])
        XCTAssertEqual(machine.transportError(), [.transportFailed, .terminated])
        XCTAssertEqual(machine.state, .terminated)
        XCTAssertEqual(machine.receiveResponse("200", statusCode: 200), [])
    }

    func testAnUnreachableDestinationFailsTheRequestOnlyBeforeAnyResponse() {
        var trying = Machine(request: "REGISTER", reliableTransport: false)
        _ = trying.start()
        XCTAssertEqual(trying.destinationUnreachable(), [.cancelTimer(.e), .cancelTimer(.f), .transportFailed, .terminated])
        XCTAssertEqual(trying.state, .terminated)
        XCTAssertEqual(trying.destinationUnreachable(), [])

        var proceeding = Machine(request: "INFO", reliableTransport: false)
        _ = proceeding.start()
        _ = proceeding.receiveResponse("100", statusCode: 100)
        XCTAssertEqual(proceeding.destinationUnreachable(), [], "something answered: the peer is there")
        XCTAssertEqual(proceeding.state, .proceeding)
        var completed = Machine(request: "INFO", reliableTransport: false)
        _ = completed.start()
        _ = completed.receiveResponse("200", statusCode: 200)
        XCTAssertEqual(completed.destinationUnreachable(), [])
        XCTAssertEqual(completed.state, .completed)
    }

    func testConnectionLostFailsOnlyWhileNoFinalResponseArrived() {
        var trying = Machine(request: "BYE", reliableTransport: true)
        _ = trying.start()
        XCTAssertEqual(trying.connectionLost(), [.cancelTimer(.e), .cancelTimer(.f), .transportFailed, .terminated])
        XCTAssertEqual(trying.state, .terminated)
        XCTAssertEqual(trying.connectionLost(), [])

        var proceeding = Machine(request: "INFO", reliableTransport: true)
        _ = proceeding.start()
        _ = proceeding.receiveResponse("100", statusCode: 100)
        XCTAssertEqual(proceeding.state, .proceeding)
        XCTAssertEqual(proceeding.connectionLost(), [.cancelTimer(.e), .cancelTimer(.f), .transportFailed, .terminated])

        var completed = Machine(request: "INFO", reliableTransport: false)
        _ = completed.start()
        _ = completed.receiveResponse("200", statusCode: 200)
        XCTAssertEqual(completed.connectionLost(), [], "answered: timer K ends it")
        XCTAssertEqual(completed.state, .completed)
        var idle = Machine(request: "INFO", reliableTransport: true)
        XCTAssertEqual(idle.connectionLost(), [])
    }
}
