import VoiceMediaTypes
import VoiceSupport
import XCTest
@testable import VoiceSIP

final class SIPTransactionInviteServerTests: XCTestCase {
    private typealias Machine = SIPInviteServerTransaction<String>
    private func ms(_ value: Int64) -> MediaTime { .milliseconds(value) }

    /// RFC 3261 §24.2 F1: Via: SIP/2.0/UDP pc33.atlanta.com;branch=z9hG4bKnashds8
    private func identity(_ method: String) -> SIPTransactionRequestIdentity {
        SIPTransactionRequestIdentity(method: method, branch: "z9hG4bKnashds8", sentByHost: "pc33.atlanta.com")
    }

    private func receivedInvite(reliable: Bool) throws -> (SIPTransactionTable<String>, SIPTransactionKey) {
        var table = SIPTransactionTable<String>()
        guard
            case .created(let key, let outputs) = try table.receiveRequest(
                "INVITE", identity: identity("INVITE"), reliableTransport: reliable, now: .zero)
        else {
            XCTFail("expected a new transaction")
            throw SIPTransactionError.unknownTransaction
        }
        XCTAssertEqual(outputs.map(\.action), [.deliverRequest("INVITE")])
        return (table, key)
    }

    private func receive(
        _ table: inout SIPTransactionTable<String>, _ method: String, at time: Int64
    ) throws -> [SIPTransactionAction<String>] {
        guard
            case .matched(_, let outputs) = try table.receiveRequest(
                method, identity: identity(method), reliableTransport: false, now: ms(time))
        else {
            XCTFail("\(method) did not match")
            return []
        }
        return outputs.map(\.action)
    }

    private func state(_ table: SIPTransactionTable<String>, _ key: SIPTransactionKey) -> Machine.State? {
        guard case .inviteServer(let machine) = table[key] else { return nil }
        return machine.state
    }

    func testTryingIsRequestedAfter200MillisecondsWithoutAnAnswer() throws {
        var (table, key) = try receivedInvite(reliable: false)
        XCTAssertEqual(table.run(until: ms(199)), [])
        XCTAssertEqual(table.run(until: ms(200)), [SIPTransactionTestEvent(milliseconds: 200, action: .sendTrying)])
        XCTAssertEqual(try table.sendResponse("100", statusCode: 100, on: key, now: ms(201)).map(\.action), [.transmit("100")])
        XCTAssertEqual(state(table, key), .proceeding(tryingPending: false))
        XCTAssertEqual(table.runningTimerCount, 0)
    }

    func testAnswerWithin200MillisecondsSuppressesTrying() throws {
        var (table, key) = try receivedInvite(reliable: false)
        XCTAssertEqual(try table.sendResponse("180", statusCode: 180, on: key, now: ms(150)).map(\.action), [.transmit("180")])
        XCTAssertEqual(table.run(until: ms(10_000)), [])
    }

    func testRetransmittedInviteIsAbsorbedOrAnsweredWithTheLastProvisional() throws {
        var (table, key) = try receivedInvite(reliable: false)
        XCTAssertEqual(try receive(&table, "INVITE", at: 100), [], "no response yet: absorbed, not passed up again")
        _ = try table.sendResponse("180", statusCode: 180, on: key, now: ms(150))
        _ = try table.sendResponse("183", statusCode: 183, on: key, now: ms(160))
        XCTAssertEqual(try receive(&table, "INVITE", at: 600), [.transmit("183")])
        XCTAssertEqual(try receive(&table, "ACK", at: 700), [], "an ACK in Proceeding is dropped")
    }

    func testFailureIsRetransmittedByTimerGUntilTimerH() throws {
        var (table, key) = try receivedInvite(reliable: false)
        XCTAssertEqual(try table.sendResponse("486", statusCode: 486, on: key, now: .zero).map(\.action), [.transmit("486")])
        let events = table.run(until: ms(60_000))
        // RFC 3261 §17.2.1: G starts at T1 and doubles up to T2; H at 64·T1.
        XCTAssertEqual(events.transmitTimes, [500, 1_500, 3_500, 7_500, 11_500, 15_500, 19_500, 23_500, 27_500, 31_500])
        XCTAssertEqual(
            events.suffix(2),
            [
                SIPTransactionTestEvent(milliseconds: 32_000, action: .timedOut(.h)),
                SIPTransactionTestEvent(milliseconds: 32_000, action: .terminated),
            ])
        XCTAssertEqual(table.count, 0)
    }

    func testAckConfirmsAndIsAbsorbedUntilTimerI() throws {
        var (table, key) = try receivedInvite(reliable: false)
        _ = try table.sendResponse("486", statusCode: 486, on: key, now: ms(100))
        XCTAssertEqual(try receive(&table, "INVITE", at: 300), [.transmit("486")], "INVITE retransmission gets the final response")
        XCTAssertEqual(table.run(until: ms(700)).transmitTimes, [600])
        XCTAssertEqual(try receive(&table, "ACK", at: 800), [])
        XCTAssertEqual(state(table, key), .confirmed)
        XCTAssertEqual(try receive(&table, "ACK", at: 900), [], "ACK retransmission absorbed")
        XCTAssertEqual(try receive(&table, "INVITE", at: 1_000), [], "INVITE retransmission absorbed in Confirmed")
        XCTAssertThrowsError(try table.sendResponse("500", statusCode: 500, on: key, now: ms(1_000))) {
            XCTAssertEqual($0 as? SIPTransactionError, .responseNotAllowed)
        }
        // No G retransmissions after the ACK; I = T4 = 5 s.
        XCTAssertEqual(table.run(until: ms(60_000)), [SIPTransactionTestEvent(milliseconds: 5_800, action: .terminated)])
    }

    func testSuccessEntersAcceptedUntilTimerL() throws {
        var (table, key) = try receivedInvite(reliable: false)
        _ = try table.sendResponse("180", statusCode: 180, on: key, now: ms(10))
        XCTAssertEqual(try table.sendResponse("200", statusCode: 200, on: key, now: ms(1_000)).map(\.action), [.transmit("200")])
        XCTAssertEqual(state(table, key), .accepted)
        XCTAssertEqual(try receive(&table, "INVITE", at: 1_100), [], "RFC 6026: INVITE retransmissions absorbed, the TU retransmits 2xx")
        XCTAssertEqual(try table.sendResponse("200", statusCode: 200, on: key, now: ms(1_500)).map(\.action), [.transmit("200")])
        XCTAssertEqual(try receive(&table, "ACK", at: 1_600), [.deliverRequest("ACK")])
        XCTAssertThrowsError(try table.sendResponse("486", statusCode: 486, on: key, now: ms(1_700))) {
            XCTAssertEqual($0 as? SIPTransactionError, .responseNotAllowed)
        }
        XCTAssertEqual(table.run(until: ms(60_000)), [SIPTransactionTestEvent(milliseconds: 33_000, action: .terminated)])
    }

    func testReliableTransportSkipsTimerGAndI() throws {
        var (table, key) = try receivedInvite(reliable: true)
        _ = try table.sendResponse("603", statusCode: 603, on: key, now: ms(50))
        XCTAssertEqual(table.runningTimerCount, 1, "only timer H runs over TCP")
        XCTAssertEqual(try receive(&table, "ACK", at: 100), [.terminated])
        XCTAssertEqual(table.count, 0)
    }

    func testInvalidStatusCodeIsATypedError() throws {
        var machine = Machine(request: "INVITE", reliableTransport: false)
        XCTAssertThrowsError(try machine.sendResponse("x", statusCode: 100)) {
            XCTAssertEqual($0 as? SIPTransactionError, .responseNotAllowed, "no response before start")
        }
        _ = machine.start()
        for code in [0, 99, 700, Int.max, Int.min] {
            XCTAssertThrowsError(try machine.sendResponse("x", statusCode: code)) {
                XCTAssertEqual($0 as? SIPTransactionError, .invalidStatusCode)
            }
        }
        XCTAssertEqual(machine.state, .proceeding(tryingPending: true))
    }

    func testTransportErrorInformsTheTU() {
        var machine = Machine(request: "INVITE", reliableTransport: false)
        _ = machine.start()
        XCTAssertEqual(machine.timerFired(.h), [], "stale timers are ignored")
        XCTAssertEqual(machine.transportError(), [.transportFailed, .terminated])
        XCTAssertEqual(machine.receiveRetransmission(), [])
        XCTAssertEqual(machine.receiveACK("ACK"), [])
    }
}
