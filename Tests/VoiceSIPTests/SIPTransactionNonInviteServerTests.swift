import VoiceMediaTypes
import VoiceSupport
import XCTest
@testable import VoiceSIP

final class SIPTransactionNonInviteServerTests: XCTestCase {
    private typealias Machine = SIPNonInviteServerTransaction<String>
    private func ms(_ value: Int64) -> MediaTime { .milliseconds(value) }

    /// RFC 3665 §3.1 F5 style BYE over UDP.
    private let bye = SIPTransactionRequestIdentity(
        method: "BYE", branch: "z9hG4bK74bf9", sentByHost: "client.atlanta.example.com", sentByPort: 5060)

    private func receivedBye(reliable: Bool) throws -> (SIPTransactionTable<String>, SIPTransactionKey) {
        var table = SIPTransactionTable<String>()
        guard case .created(let key, let outputs) = try table.receiveRequest("BYE", identity: bye, reliableTransport: reliable, now: .zero)
        else {
            XCTFail("expected a new transaction")
            throw SIPTransactionError.unknownTransaction
        }
        XCTAssertEqual(outputs.map(\.action), [.deliverRequest("BYE")])
        return (table, key)
    }

    private func retransmit(_ table: inout SIPTransactionTable<String>, at time: Int64) throws -> [SIPTransactionAction<String>] {
        guard case .matched(_, let outputs) = try table.receiveRequest("BYE", identity: bye, reliableTransport: false, now: ms(time)) else {
            XCTFail("retransmission did not match")
            return []
        }
        return outputs.map(\.action)
    }

    func testRetransmissionsAreAbsorbedOrAnsweredUntilTimerJ() throws {
        var (table, key) = try receivedBye(reliable: false)
        XCTAssertEqual(try retransmit(&table, at: 500), [], "Trying discards retransmissions")
        XCTAssertEqual(try table.sendResponse("100", statusCode: 100, on: key, now: ms(600)).map(\.action), [.transmit("100")])
        XCTAssertEqual(try retransmit(&table, at: 1_500), [.transmit("100")])
        XCTAssertEqual(try table.sendResponse("200", statusCode: 200, on: key, now: ms(2_000)).map(\.action), [.transmit("200")])
        XCTAssertEqual(try retransmit(&table, at: 3_500), [.transmit("200")])
        XCTAssertThrowsError(try table.sendResponse("500", statusCode: 500, on: key, now: ms(3_600))) {
            XCTAssertEqual($0 as? SIPTransactionError, .responseNotAllowed)
        }
        // The server never retransmits on its own; J = 64·T1 over UDP.
        XCTAssertEqual(table.run(until: ms(60_000)), [SIPTransactionTestEvent(milliseconds: 34_000, action: .terminated)])
        guard case .created = try table.receiveRequest("BYE", identity: bye, reliableTransport: false, now: ms(34_001)) else {
            return XCTFail("after Terminated the same request is new")
        }
    }

    func testReliableTransportTerminatesOnTheFinalResponse() throws {
        var (table, key) = try receivedBye(reliable: true)
        XCTAssertEqual(try table.sendResponse("200", statusCode: 200, on: key, now: ms(10)).map(\.action), [.transmit("200"), .terminated])
        XCTAssertEqual(table.count, 0)
        XCTAssertEqual(table.runningTimerCount, 0)
    }

    func testMachineRejectsInvalidResponsesAndIgnoresStaleTimers() {
        var machine = Machine(request: "OPTIONS", reliableTransport: false)
        XCTAssertEqual(machine.start(), [.deliverRequest("OPTIONS")])
        XCTAssertEqual(machine.state, .trying)
        XCTAssertThrowsError(try machine.sendResponse("x", statusCode: 42)) {
            XCTAssertEqual($0 as? SIPTransactionError, .invalidStatusCode)
        }
        XCTAssertEqual(machine.timerFired(.j), [], "J does not run in Trying")
        XCTAssertEqual(try machine.sendResponse("200", statusCode: 200), [.transmit("200"), .startTimer(.j, after: ms(32_000))])
        XCTAssertEqual(machine.state, .completed)
        XCTAssertEqual(machine.timerFired(.k), [])
        XCTAssertEqual(machine.transportError(), [.transportFailed, .terminated])
        XCTAssertEqual(machine.timerFired(.j), [])
    }
}
