import VoiceMediaTypes
import VoiceSupport
import XCTest
@testable import VoiceSIP

final class SIPTransactionInviteClientTests: XCTestCase {
    private typealias Machine = SIPInviteClientTransaction<String>
    private func ms(_ value: Int64) -> MediaTime { .milliseconds(value) }

    private func startedTable(
        reliable: Bool, configuration: SIPTransactionConfiguration = .rfc3261
    ) throws -> (SIPTransactionTable<String>, SIPTransactionKey) {
        var table = SIPTransactionTable<String>(configuration: configuration)
        let (key, outputs) = try table.sendRequest(
            "INVITE", method: "INVITE", branch: "z9hG4bKnashds8", reliableTransport: reliable, now: .zero)
        XCTAssertEqual(outputs.map(\.action), [.transmit("INVITE")])
        return (table, key)
    }

    private func respond(_ table: inout SIPTransactionTable<String>, _ code: Int, at time: Int64) -> [SIPTransactionAction<String>] {
        guard
            case .matched(let outputs) = table.receiveResponse(
                "\(code)", statusCode: code, branch: "z9hG4bKnashds8", cseqMethod: "INVITE", now: ms(time))
        else {
            XCTFail("response \(code) did not match")
            return []
        }
        return outputs.map(\.action)
    }

    func testStartSendsAndStartsTimersAAndB() {
        var machine = Machine(request: "INVITE", reliableTransport: false)
        XCTAssertEqual(machine.start(), [.transmit("INVITE"), .startTimer(.a, after: ms(500)), .startTimer(.b, after: ms(32_000))])
        XCTAssertEqual(machine.state, .calling(retransmitInterval: ms(500)))
        XCTAssertEqual(machine.start(), [], "a second start is ignored")
    }

    func testTimerADoublesWithoutCapUntilTimerB() throws {
        var (table, _) = try startedTable(reliable: false)
        let events = table.run(until: ms(60_000))
        // RFC 3261 §17.1.1.2: 0.5, 1, 2, 4, 8, 16 s intervals; B at 64·T1 = 32 s.
        XCTAssertEqual(events.transmitTimes, [500, 1_500, 3_500, 7_500, 15_500, 31_500])
        XCTAssertEqual(
            events.suffix(2),
            [
                SIPTransactionTestEvent(milliseconds: 32_000, action: .timedOut(.b)),
                SIPTransactionTestEvent(milliseconds: 32_000, action: .terminated),
            ])
        XCTAssertEqual(table.count, 0)
    }

    func testConfigurableT1ScalesTheSchedule() throws {
        var (table, _) = try startedTable(reliable: false, configuration: SIPTransactionConfiguration(t1: ms(100)))
        let events = table.run(until: ms(60_000))
        XCTAssertEqual(events.transmitTimes, [100, 300, 700, 1_500, 3_100, 6_300])
        XCTAssertEqual(events.last, SIPTransactionTestEvent(milliseconds: 6_400, action: .terminated))
    }

    func testProvisionalStopsRetransmissionsAndTimerB() throws {
        var (table, key) = try startedTable(reliable: false)
        XCTAssertEqual(table.run(until: ms(700)).transmitTimes, [500])
        XCTAssertEqual(respond(&table, 180, at: 700), [.deliverResponse("180", statusCode: 180)])
        XCTAssertEqual(table.run(until: ms(120_000)), [])
        guard case .inviteClient(let machine) = table[key] else { return XCTFail("transaction gone") }
        XCTAssertEqual(machine.state, .proceeding)
        XCTAssertEqual(respond(&table, 183, at: 5_000), [.deliverResponse("183", statusCode: 183)])
    }

    func testFailureIsAckedAndRetransmissionsAbsorbedUntilTimerD() throws {
        var (table, key) = try startedTable(reliable: false)
        XCTAssertEqual(respond(&table, 180, at: 100), [.deliverResponse("180", statusCode: 180)])
        XCTAssertEqual(respond(&table, 486, at: 2_000), [.deliverResponse("486", statusCode: 486), .transmitACK(forResponse: "486")])
        // A retransmitted 486 is ACKed again and not passed up; late 1xx/2xx are dropped.
        XCTAssertEqual(respond(&table, 486, at: 2_500), [.transmitACK(forResponse: "486")])
        XCTAssertEqual(respond(&table, 180, at: 2_600), [])
        XCTAssertEqual(table.run(until: ms(33_999)), [])
        XCTAssertNotNil(table[key])
        XCTAssertEqual(table.run(until: ms(34_000)), [SIPTransactionTestEvent(milliseconds: 34_000, action: .terminated)])
        XCTAssertEqual(
            table.receiveResponse("486", statusCode: 486, branch: "z9hG4bKnashds8", cseqMethod: "INVITE", now: ms(34_001)), .unmatched)
    }

    func testFinalResponseInCallingStopsTimerA() throws {
        var (table, _) = try startedTable(reliable: false)
        XCTAssertEqual(respond(&table, 603, at: 200), [.deliverResponse("603", statusCode: 603), .transmitACK(forResponse: "603")])
        XCTAssertEqual(table.run(until: ms(40_000)), [SIPTransactionTestEvent(milliseconds: 32_200, action: .terminated)])
    }

    func testSuccessEntersAcceptedAndPassesRetransmissionsUntilTimerM() throws {
        var (table, key) = try startedTable(reliable: false)
        XCTAssertEqual(respond(&table, 200, at: 1_000), [.deliverResponse("200", statusCode: 200)])
        guard case .inviteClient(let machine) = table[key] else { return XCTFail("transaction gone") }
        XCTAssertEqual(machine.state, .accepted)
        // RFC 6026 §7.2: 2xx retransmissions (or forks) go to the TU, which ACKs them; no ACK here.
        XCTAssertEqual(respond(&table, 200, at: 1_500), [.deliverResponse("200", statusCode: 200)])
        XCTAssertEqual(respond(&table, 486, at: 1_600), [])
        XCTAssertEqual(table.run(until: ms(60_000)), [SIPTransactionTestEvent(milliseconds: 33_000, action: .terminated)])
    }

    func testReliableTransportSkipsRetransmissionsAndTimerD() throws {
        var (table, _) = try startedTable(reliable: true)
        XCTAssertEqual(table.runningTimerCount, 1, "only timer B runs over TCP")
        XCTAssertEqual(
            respond(&table, 404, at: 300), [.deliverResponse("404", statusCode: 404), .transmitACK(forResponse: "404"), .terminated])
        XCTAssertEqual(table.count, 0)
    }

    func testTimerBStillAppliesOverReliableTransport() throws {
        var (table, _) = try startedTable(reliable: true)
        let events = table.run(until: ms(60_000))
        XCTAssertEqual(
            events,
            [
                SIPTransactionTestEvent(milliseconds: 32_000, action: .timedOut(.b)),
                SIPTransactionTestEvent(milliseconds: 32_000, action: .terminated),
            ])
    }

    func testConnectionLostFailsOnlyWhileNoFinalResponseArrived() {
        var calling = Machine(request: "INVITE", reliableTransport: true)
        _ = calling.start()
        XCTAssertEqual(calling.connectionLost(), [.cancelTimer(.a), .cancelTimer(.b), .transportFailed, .terminated])
        XCTAssertEqual(calling.state, .terminated)
        XCTAssertEqual(calling.connectionLost(), [])

        var proceeding = Machine(request: "INVITE", reliableTransport: true)
        _ = proceeding.start()
        _ = proceeding.receiveResponse("180", statusCode: 180)
        XCTAssertEqual(proceeding.connectionLost(), [.cancelTimer(.a), .cancelTimer(.b), .transportFailed, .terminated])

        // Answered: the TU already has its final response; the transaction ends on its own timer.
        var accepted = Machine(request: "INVITE", reliableTransport: true)
        _ = accepted.start()
        _ = accepted.receiveResponse("200", statusCode: 200)
        XCTAssertEqual(accepted.connectionLost(), [])
        XCTAssertEqual(accepted.state, .accepted)
        var completed = Machine(request: "INVITE", reliableTransport: false)
        _ = completed.start()
        _ = completed.receiveResponse("486", statusCode: 486)
        XCTAssertEqual(completed.connectionLost(), [])
        XCTAssertEqual(completed.state, .completed)
        var idle = Machine(request: "INVITE", reliableTransport: true)
        XCTAssertEqual(idle.connectionLost(), [])
    }

    func testAnUnreachableDestinationFailsTheInviteOnlyBeforeAnyResponse() {
        var calling = Machine(request: "INVITE", reliableTransport: false)
        _ = calling.start()
        XCTAssertEqual(calling.destinationUnreachable(), [.cancelTimer(.a), .cancelTimer(.b), .transportFailed, .terminated])
        XCTAssertEqual(calling.state, .terminated)
        XCTAssertEqual(calling.destinationUnreachable(), [])

        // Something answered: the peer is there, whatever a late or forged ICMP message says.
        var proceeding = Machine(request: "INVITE", reliableTransport: false)
        _ = proceeding.start()
        _ = proceeding.receiveResponse("100", statusCode: 100)
        XCTAssertEqual(proceeding.destinationUnreachable(), [])
        XCTAssertEqual(proceeding.state, .proceeding)
        var completed = Machine(request: "INVITE", reliableTransport: false)
        _ = completed.start()
        _ = completed.receiveResponse("486", statusCode: 486)
        XCTAssertEqual(completed.destinationUnreachable(), [])
        XCTAssertEqual(completed.state, .completed)
        var idle = Machine(request: "INVITE", reliableTransport: false)
        XCTAssertEqual(idle.destinationUnreachable(), [])
    }

    func testTransportErrorTerminatesInEveryLiveState() {
        var calling = Machine(request: "INVITE", reliableTransport: false)
        _ = calling.start()
        XCTAssertEqual(calling.transportError(), [.transportFailed, .terminated])
        XCTAssertEqual(calling.state, .terminated)
        XCTAssertEqual(calling.transportError(), [])

        var completed = Machine(request: "INVITE", reliableTransport: false)
        _ = completed.start()
        _ = completed.receiveResponse("500", statusCode: 500)
        XCTAssertEqual(completed.state, .completed)
        XCTAssertEqual(completed.transportError(), [.transportFailed, .terminated])
    }

    func testInvalidStatusCodesAndStaleTimersAreIgnored() {
        var machine = Machine(request: "INVITE", reliableTransport: false)
        XCTAssertEqual(machine.receiveResponse("early", statusCode: 180), [], "nothing before start")
        _ = machine.start()
        XCTAssertEqual(machine.receiveResponse("x", statusCode: 99), [])
        XCTAssertEqual(machine.receiveResponse("x", statusCode: 700), [])
        XCTAssertEqual(machine.receiveResponse("x", statusCode: -1), [])
        XCTAssertEqual(machine.timerFired(.d), [])
        XCTAssertEqual(machine.timerFired(.g), [])
        XCTAssertEqual(machine.state, .calling(retransmitInterval: ms(500)))
        _ = machine.receiveResponse("100", statusCode: 100)
        XCTAssertEqual(machine.timerFired(.a), [], "timer A after a provisional is stale")
        XCTAssertEqual(machine.timerFired(.b), [], "timer B does not apply in Proceeding")
        XCTAssertEqual(machine.state, .proceeding)
    }
}
