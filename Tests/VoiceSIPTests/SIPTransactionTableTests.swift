import VoiceMediaTypes
import VoiceSupport
import XCTest
@testable import VoiceSIP

/// A timestamped output of a table run on the virtual clock.
struct SIPTransactionTestEvent: Equatable {
    var milliseconds: Int64
    var action: SIPTransactionAction<String>
}

extension SIPTransactionTable where Message == String {
    /// Fires every timer up to `end`, one deadline at a time, and records when each output happened.
    mutating func run(until end: MediaTime) -> [SIPTransactionTestEvent] {
        var events: [SIPTransactionTestEvent] = []
        while let deadline = nextDeadline, deadline <= end {
            for output in advance(to: deadline) {
                events.append(SIPTransactionTestEvent(milliseconds: deadline.nanoseconds / 1_000_000, action: output.action))
            }
        }
        return events
    }
}

extension Array where Element == SIPTransactionTestEvent {
    /// The times of the `.transmit` outputs, in milliseconds.
    var transmitTimes: [Int64] {
        compactMap { if case .transmit = $0.action { return $0.milliseconds } else { return nil } }
    }
}

final class SIPTransactionTableTests: XCTestCase {
    private func ms(_ value: Int64) -> MediaTime { .milliseconds(value) }

    private func inviteIdentity(_ method: String = "INVITE", branch: String = "z9hG4bKnashds8") -> SIPTransactionRequestIdentity {
        SIPTransactionRequestIdentity(method: method, branch: branch, sentByHost: "pc33.atlanta.com")
    }

    func testClientAndServerTransactionsWithTheSameBranchAreDistinct() throws {
        var table = SIPTransactionTable<String>()
        let (clientKey, _) = try table.sendRequest(
            "INVITE", method: "INVITE", branch: "z9hG4bKnashds8", reliableTransport: false, now: .zero)
        guard
            case .created(let serverKey, _) = try table.receiveRequest(
                "INVITE in", identity: inviteIdentity(), reliableTransport: false, now: .zero)
        else {
            return XCTFail("expected a new server transaction")
        }
        XCTAssertNotEqual(clientKey, serverKey)
        XCTAssertEqual(table.count, 2)
    }

    func testDuplicateClientTransactionIsRefused() throws {
        var table = SIPTransactionTable<String>()
        _ = try table.sendRequest("OPTIONS", method: "OPTIONS", branch: "z9hG4bK1", reliableTransport: false, now: .zero)
        XCTAssertThrowsError(try table.sendRequest("OPTIONS", method: "OPTIONS", branch: "z9hG4bK1", reliableTransport: false, now: .zero))
        {
            XCTAssertEqual($0 as? SIPTransactionError, .duplicateTransaction)
        }
    }

    func testCapacityLimitsClientAndServerTransactions() throws {
        var table = SIPTransactionTable<String>(capacity: 2)
        _ = try table.sendRequest("a", method: "OPTIONS", branch: "z9hG4bK1", reliableTransport: false, now: .zero)
        _ = try table.sendRequest("b", method: "OPTIONS", branch: "z9hG4bK2", reliableTransport: false, now: .zero)
        XCTAssertThrowsError(try table.sendRequest("c", method: "OPTIONS", branch: "z9hG4bK3", reliableTransport: false, now: .zero)) {
            XCTAssertEqual($0 as? SIPTransactionError, .tableFull)
        }
        XCTAssertThrowsError(try table.receiveRequest("d", identity: inviteIdentity(), reliableTransport: false, now: .zero)) {
            XCTAssertEqual($0 as? SIPTransactionError, .tableFull)
        }
    }

    func testAckIsNeverAClientTransaction() {
        var table = SIPTransactionTable<String>()
        XCTAssertThrowsError(try table.sendRequest("ACK", method: "ACK", branch: "z9hG4bK1", reliableTransport: false, now: .zero)) {
            XCTAssertEqual($0 as? SIPTransactionError, .ackIsNotATransaction)
        }
    }

    func testResponseMatchesOnBranchAndCSeqMethod() throws {
        var table = SIPTransactionTable<String>()
        _ = try table.sendRequest("INVITE", method: "INVITE", branch: "z9hG4bKx", reliableTransport: true, now: .zero)
        // Same branch, CSeq method CANCEL: belongs to the CANCEL transaction, not the INVITE's.
        XCTAssertEqual(
            table.receiveResponse("200 CANCEL", statusCode: 200, branch: "z9hG4bKx", cseqMethod: "CANCEL", now: ms(10)), .unmatched)
        XCTAssertEqual(table.receiveResponse("180", statusCode: 180, branch: "z9hG4bKy", cseqMethod: "INVITE", now: ms(10)), .unmatched)
        XCTAssertEqual(table.receiveResponse("bad", statusCode: 180, branch: "", cseqMethod: "INVITE", now: ms(10)), .unmatched)
        guard
            case .matched(let outputs) = table.receiveResponse(
                "180", statusCode: 180, branch: "z9hG4bKx", cseqMethod: "INVITE", now: ms(10))
        else {
            return XCTFail("expected a match")
        }
        XCTAssertEqual(outputs.map(\.action), [.deliverResponse("180", statusCode: 180)])
    }

    func testCancelFindsTheInviteItCancels() throws {
        var table = SIPTransactionTable<String>()
        guard
            case .created(let inviteKey, _) = try table.receiveRequest(
                "INVITE", identity: inviteIdentity(), reliableTransport: false, now: .zero),
            case .created(let cancelKey, let outputs) = try table.receiveRequest(
                "CANCEL", identity: inviteIdentity("CANCEL"), reliableTransport: false, now: ms(50))
        else { return XCTFail("expected two server transactions") }
        XCTAssertNotEqual(inviteKey, cancelKey)
        XCTAssertEqual(outputs.map(\.action), [.deliverRequest("CANCEL")])
        XCTAssertEqual(table.inviteTransaction(cancelledBy: cancelKey), inviteKey)
        XCTAssertNil(table.inviteTransaction(cancelledBy: inviteKey))
    }

    func testAckToSuccessMatchingNoTransactionGoesToTheTU() throws {
        var table = SIPTransactionTable<String>()
        XCTAssertEqual(
            try table.receiveRequest(
                "ACK", identity: inviteIdentity("ACK", branch: "z9hG4bKnashds9"), reliableTransport: false, now: .zero), .unmatchedACK)
        XCTAssertEqual(table.count, 0)
    }

    func testSendResponseOnUnknownOrClientTransactionThrows() throws {
        var table = SIPTransactionTable<String>()
        let (clientKey, _) = try table.sendRequest("BYE", method: "BYE", branch: "z9hG4bK1", reliableTransport: false, now: .zero)
        XCTAssertThrowsError(try table.sendResponse("200", statusCode: 200, on: clientKey, now: .zero)) {
            XCTAssertEqual($0 as? SIPTransactionError, .notAServerTransaction)
        }
        let stranger = try SIPTransactionKey.server(for: inviteIdentity("BYE"))
        XCTAssertThrowsError(try table.sendResponse("200", statusCode: 200, on: stranger, now: .zero)) {
            XCTAssertEqual($0 as? SIPTransactionError, .unknownTransaction)
        }
    }

    func testLateAdvanceKeepsTheExactScheduleAndOrder() throws {
        var table = SIPTransactionTable<String>()
        _ = try table.sendRequest("INVITE", method: "INVITE", branch: "z9hG4bKa", reliableTransport: false, now: .zero)
        _ = try table.sendRequest("OPTIONS", method: "OPTIONS", branch: "z9hG4bKb", reliableTransport: false, now: ms(100))
        // One late call fires everything due, in deadline order.
        let outputs = table.advance(to: ms(3_600))
        XCTAssertEqual(
            outputs.map(\.action),
            [
                .transmit("INVITE"),  // A at 500
                .transmit("OPTIONS"),  // E at 600
                .transmit("INVITE"),  // A at 1500
                .transmit("OPTIONS"),  // E at 1600
                .transmit("INVITE"),  // A at 3500
                .transmit("OPTIONS"),  // E at 3600
            ])
        XCTAssertEqual(table.nextDeadline, ms(7_500))
    }

    func testTerminationRemovesTheTransactionAndItsTimers() throws {
        var table = SIPTransactionTable<String>()
        let (key, _) = try table.sendRequest("INVITE", method: "INVITE", branch: "z9hG4bKa", reliableTransport: false, now: .zero)
        XCTAssertEqual(table.runningTimerCount, 2)
        let outputs = table.transportError(on: key, now: ms(20))
        XCTAssertEqual(outputs.map(\.action), [.transportFailed, .terminated])
        XCTAssertEqual(table.count, 0)
        XCTAssertEqual(table.runningTimerCount, 0)
        XCTAssertNil(table.nextDeadline)
        XCTAssertEqual(table.transportError(on: key, now: ms(30)), [])
    }

    func testConnectionLostFailsTheClientTransactionsSentOverItAtOnce() throws {
        var table = SIPTransactionTable<String>()
        // Messages name their connection after "@"; over TCP only timers B and F run.
        let (invite, _) = try table.sendRequest("INVITE@a", method: "INVITE", branch: "z9hG4bK1", reliableTransport: true, now: .zero)
        let (info, _) = try table.sendRequest("INFO@a", method: "INFO", branch: "z9hG4bK2", reliableTransport: true, now: ms(10))
        let (bye, _) = try table.sendRequest("BYE@b", method: "BYE", branch: "z9hG4bK3", reliableTransport: true, now: ms(20))
        let (answered, _) = try table.sendRequest("OPTIONS@a", method: "OPTIONS", branch: "z9hG4bK4", reliableTransport: false, now: ms(30))
        guard case .matched = table.receiveResponse("200", statusCode: 200, branch: "z9hG4bK4", cseqMethod: "OPTIONS", now: ms(40))
        else { return XCTFail("the OPTIONS answer did not match") }
        guard
            case .created(let server, _) = try table.receiveRequest(
                "INFO@a", identity: inviteIdentity("INFO", branch: "z9hG4bKpeer"), reliableTransport: true, now: ms(50))
        else { return XCTFail("no server transaction") }
        XCTAssertTrue(table.run(until: ms(1_000)).isEmpty)

        let outputs = table.connectionLost(now: ms(1_000)) { $0.hasSuffix("@a") }
        XCTAssertEqual(
            Set(outputs.map { "\($0.key.method) \($0.action)" }),
            ["INVITE transportFailed", "INVITE terminated", "INFO transportFailed", "INFO terminated"])
        XCTAssertEqual(outputs.filter { $0.key == invite }.map(\.action), [.transportFailed, .terminated])
        XCTAssertEqual(outputs.filter { $0.key == info }.map(\.action), [.transportFailed, .terminated])
        XCTAssertNil(table[invite])
        XCTAssertNil(table[info])
        XCTAssertNotNil(table[answered], "answered already: waits for timer K")
        XCTAssertNotNil(table[server], "server transactions are not failed by it")
        XCTAssertEqual(table.connectionLost(now: ms(1_100)) { $0.hasSuffix("@a") }, [], "nothing left to fail")

        // The BYE over the other connection still ends only at timer F.
        let later = table.run(until: ms(60_000))
        XCTAssertEqual(later.filter { $0.action == .timedOut(.f) }.map(\.milliseconds), [32_020])
        XCTAssertNil(table[bye])
    }

    func testAnUnreachableDestinationFailsOnlyUnansweredClientTransactionsSentThere() throws {
        var table = SIPTransactionTable<String>()
        // Messages name their destination after "@".
        let (invite, _) = try table.sendRequest("INVITE@a", method: "INVITE", branch: "z9hG4bK1", reliableTransport: false, now: .zero)
        let (register, _) = try table.sendRequest("REGISTER@a", method: "REGISTER", branch: "z9hG4bK2", reliableTransport: false, now: ms(10))
        let (other, _) = try table.sendRequest("INVITE@b", method: "INVITE", branch: "z9hG4bK3", reliableTransport: false, now: ms(20))
        let (ringing, _) = try table.sendRequest("INVITE@a", method: "INVITE", branch: "z9hG4bK4", reliableTransport: false, now: ms(30))
        guard case .matched = table.receiveResponse("180", statusCode: 180, branch: "z9hG4bK4", cseqMethod: "INVITE", now: ms(40))
        else { return XCTFail("the 180 did not match") }

        let outputs = table.destinationUnreachable(now: ms(50)) { $0.hasSuffix("@a") }
        XCTAssertEqual(outputs.filter { $0.key == invite }.map(\.action), [.transportFailed, .terminated])
        XCTAssertEqual(outputs.filter { $0.key == register }.map(\.action), [.transportFailed, .terminated])
        XCTAssertEqual(outputs.count, 4)
        XCTAssertNil(table[invite])
        XCTAssertNil(table[register])
        XCTAssertNotNil(table[other], "sent elsewhere")
        XCTAssertNotNil(table[ringing], "answered already")
        // The INVITE to the other destination still retransmits and ends only at timer B.
        let later = table.run(until: ms(60_000))
        XCTAssertEqual(later.filter { $0.action == .timedOut(.b) }.map(\.milliseconds), [32_020])
    }

    func testManyTransactionsAllTimeOut() throws {
        var table = SIPTransactionTable<String>()
        for index in 0..<200 {
            _ = try table.sendRequest(
                "r\(index)", method: "OPTIONS", branch: "z9hG4bK\(index)", reliableTransport: false, now: ms(Int64(index)))
        }
        let events = table.run(until: ms(40_000))
        let timeouts = events.filter { $0.action == .timedOut(.f) }
        XCTAssertEqual(timeouts.count, 200)
        XCTAssertEqual(timeouts.first?.milliseconds, 32_000)
        XCTAssertEqual(timeouts.last?.milliseconds, 32_199)
        XCTAssertEqual(table.count, 0)
        XCTAssertEqual(table.runningTimerCount, 0)
    }

    func testClientAndServerTablesRecoverFromLossOverAVirtualLoop() throws {
        let branch = "z9hG4bKloop1"
        let via = SIPTransactionRequestIdentity(method: "INVITE", branch: branch, sentByHost: "client.example.com")
        var client = SIPTransactionTable<String>()
        var server = SIPTransactionTable<String>()

        // t = 0: the first INVITE is lost.
        _ = try client.sendRequest("INVITE", method: "INVITE", branch: branch, reliableTransport: false, now: .zero)
        // t = 500: timer A retransmits; this copy arrives.
        XCTAssertEqual(client.advance(to: ms(500)).map(\.action), [.transmit("INVITE")])
        guard
            case .created(let serverKey, let delivered) = try server.receiveRequest(
                "INVITE", identity: via, reliableTransport: false, now: ms(500))
        else {
            return XCTFail("the server should create a transaction")
        }
        XCTAssertEqual(delivered.map(\.action), [.deliverRequest("INVITE")])
        // The TU rejects at once; that 486 is lost.
        XCTAssertEqual(try server.sendResponse("486", statusCode: 486, on: serverKey, now: ms(500)).map(\.action), [.transmit("486")])
        // t = 1000: timer G retransmits the 486; it arrives and the client ACKs it.
        XCTAssertEqual(server.advance(to: ms(1_000)).map(\.action), [.transmit("486")])
        guard
            case .matched(let responses) = client.receiveResponse(
                "486", statusCode: 486, branch: branch, cseqMethod: "INVITE", now: ms(1_000))
        else {
            return XCTFail("the 486 should match the client transaction")
        }
        XCTAssertEqual(responses.map(\.action), [.deliverResponse("486", statusCode: 486), .transmitACK(forResponse: "486")])
        var ack = via
        ack.method = "ACK"
        guard case .matched(_, let acked) = try server.receiveRequest("ACK", identity: ack, reliableTransport: false, now: ms(1_000)) else {
            return XCTFail("the ACK should match the server transaction")
        }
        XCTAssertEqual(acked.map(\.action), [])
        // Both sides now only wait out their absorbing timers: D (32 s) and I (5 s).
        XCTAssertEqual(client.run(until: ms(60_000)), [SIPTransactionTestEvent(milliseconds: 33_000, action: .terminated)])
        XCTAssertEqual(server.run(until: ms(60_000)), [SIPTransactionTestEvent(milliseconds: 6_000, action: .terminated)])
    }
}
