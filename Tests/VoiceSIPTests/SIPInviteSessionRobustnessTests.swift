import VoiceMediaTypes
import VoiceSupport
import VoiceTestAudio
import XCTest

@testable import VoiceSIP

/// Malformed and unexpected input: nothing traps, every request but ACK gets a response.
final class SIPInviteSessionRobustnessTests: XCTestCase {
    typealias F = SIPInviteSessionFixture

    private static let garbage = ["", "x", "<", "1 2 3", "sip:", "<sip:a@b>;tag", "99999999999 INFO", String(repeating: "a", count: 2000)]

    /// Requests of a real call, each damaged in every header one way after another.
    private func damagedRequests() throws -> [SIPRequest] {
        var (alice, _) = try F.establishedCall()
        var originals = [try F.single(F.requests(alice.hold(now: .zero)))]
        originals.append(try F.single(F.requests(alice.sendInfo(contentType: "application/json", body: [0x7B, 0x7D], now: .zero))))
        var dialog = try XCTUnwrap(alice.currentDialog)
        let via = SIPVia(transport: "UDP", host: "192.0.2.10", branch: "z9hG4bKfuzz")
        for method in [SIPMethod.bye, .options, .cancel, .refer] { originals.append(dialog.makeRequest(method: method, via: via)) }
        var out: [SIPRequest] = []
        for original in originals {
            for field in original.headers {
                for value in Self.garbage {
                    var damaged = original
                    damaged.headers.set(field.name, value)
                    out.append(damaged)
                }
                var removed = original
                removed.headers.remove(field.name)
                out.append(removed)
            }
            var body = original
            body.body = Array(repeating: 0xFF, count: 300)
            out.append(body)
        }
        return out
    }

    func testEveryDamagedRequestIsAnsweredWithoutTrapping() throws {
        let requests = try damagedRequests()
        XCTAssertGreaterThan(requests.count, 300)
        for request in requests {
            var (_, bob) = try F.establishedCall()
            let actions = bob.receiveRequest(request, now: .zero)
            XCTAssertFalse(F.responses(actions).isEmpty, "\(request.method) \(request.headers.fields)")
        }
        // The same against a callee that has not answered, and a caller still calling.
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        for request in requests {
            var bob = F.callee(invite)
            XCTAssertFalse(F.responses(bob.receiveRequest(request, now: .zero)).isEmpty)
            XCTAssertFalse(F.responses(alice.receiveRequest(request, now: .zero)).isEmpty)
        }
    }

    func testDamagedResponsesAndInvitesNeverTrap() throws {
        var generator = SplitMix64(seed: 7)
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var bob = F.callee(invite)
        let ok = try F.single(F.responses(bob.accept(now: .zero)))
        for _ in 0..<500 {
            var damaged = ok
            let field = damaged.headers.fields[Int(generator.next(upperBound: UInt32(damaged.headers.count)))]
            damaged.headers.set(field.name, Self.garbage[Int(generator.next(upperBound: UInt32(Self.garbage.count)))])
            if generator.next(upperBound: UInt32(4)) == 0 { damaged.statusCode = Int(generator.next(upperBound: UInt32(700))) }
            if generator.next(upperBound: UInt32(4)) == 0 {
                damaged.body = Array(repeating: UInt8(truncatingIfNeeded: generator.next()), count: 40)
            }
            var caller = alice
            _ = caller.receiveResponse(damaged, now: .zero)
            var damagedInvite = invite
            damagedInvite.headers.set(field.name, "garbage")
            damagedInvite.body = damaged.body
            var callee = F.callee(damagedInvite)
            _ = callee.ring(now: .zero)
            _ = callee.accept(now: .zero)
            _ = callee.hangUp(now: .zero)
        }
        // Timers that were never started, and requests failing that were never sent, do nothing.
        for timer in [SIPInviteSessionTimer.okRetransmission, .ackTimeout, .glareRetry, .cancelTimeout] {
            XCTAssertEqual(alice.timerFired(timer, now: .seconds(1)), [])
        }
        XCTAssertEqual(alice.requestFailed(method: .bye, cseq: 9, failure: .transportError, now: .zero), [])
        // API calls in the wrong state do nothing.
        XCTAssertEqual(alice.accept(now: .zero), [])
        XCTAssertEqual(alice.ring(now: .zero), [])
        XCTAssertEqual(alice.reject(statusCode: 486, now: .zero), [])
        XCTAssertEqual(bob.start(now: .zero), [])
    }
}
