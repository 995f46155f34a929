import VoiceSupport
import XCTest

@testable import VoiceSIP

/// RFC 4028 session timers, both roles, on the session's own clock: what the INVITE and 2xx
/// say, who refreshes and when, the UPDATE or re-INVITE that refreshes, 422, and the BYE of a
/// session nobody refreshed.
final class SIPSessionTimerTests: XCTestCase {
    typealias F = SIPInviteSessionFixture

    private func timers(_ actions: [SIPInviteSessionAction]) -> [SIPInviteSessionTimer: MediaTime] { F.started(actions) }

    private func configuration(_ base: SIPInviteSession.Configuration, _ settings: SIPSessionTimer.Settings?) -> SIPInviteSession.Configuration {
        var configuration = base
        configuration.sessionTimer = settings
        return configuration
    }

    func testTheInviteAsksAndThe2xxMakesTheCallerTheRefresher() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        XCTAssertTrue(invite.headers.lists(optionTag: "timer", in: "supported"))
        XCTAssertEqual(try invite.headers.sessionExpires(), SIPSessionExpires(seconds: 1_800))
        XCTAssertEqual(try invite.headers.minimumSE(), 90)

        var bob = F.callee(invite)
        let accepted = bob.accept(now: .zero)
        let ok = try F.single(F.responses(accepted))
        XCTAssertEqual(try ok.headers.sessionExpires(), SIPSessionExpires(seconds: 1_800, refresher: .uac))
        XCTAssertTrue(ok.headers.lists(optionTag: "timer", in: "require"), "the caller supports timers")
        XCTAssertEqual(timers(accepted)[.sessionExpiry], .seconds(1_768), "the interval less 32 s")
        XCTAssertNil(timers(accepted)[.sessionRefresh], "the caller refreshes")

        let answered = alice.receiveResponse(ok, now: .zero)
        XCTAssertEqual(timers(answered)[.sessionRefresh], .seconds(900), "half the interval")
        XCTAssertEqual(timers(answered)[.sessionExpiry], .seconds(1_768))
    }

    func testTheRefreshIsAnUpdateWhereThePeerAllowsItAndRestartsBothSides() throws {
        var (alice, bob) = try F.establishedCall()
        let refresh = alice.timerFired(.sessionRefresh, now: .seconds(900))
        let update = try F.single(F.requests(refresh))
        XCTAssertEqual(update.method, .update)
        XCTAssertTrue(update.body.isEmpty, "no offer: only the timer")
        XCTAssertEqual(try update.headers.sessionExpires(), SIPSessionExpires(seconds: 1_800, refresher: .uac))

        let answered = bob.receiveRequest(update, now: .seconds(900))
        let ok = try F.single(F.responses(answered))
        XCTAssertEqual(ok.statusCode, 200)
        XCTAssertEqual(try ok.headers.sessionExpires(), SIPSessionExpires(seconds: 1_800, refresher: .uac))
        XCTAssertTrue(answered.contains(.cancelTimer(.sessionExpiry)), "bob's expiry starts over")
        XCTAssertEqual(timers(answered)[.sessionExpiry], .seconds(1_768))

        let restarted = alice.receiveResponse(ok, now: .seconds(900))
        XCTAssertEqual(timers(restarted)[.sessionRefresh], .seconds(900))
        XCTAssertEqual(alice.state, .confirmed)
        XCTAssertEqual(bob.state, .confirmed)
    }

    func testWithoutUpdateTheRefreshIsAReInviteWithTheSameMedia() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var bob = F.callee(invite)
        var ok = try F.single(F.responses(bob.accept(now: .zero)))
        ok.headers.set("Allow", "INVITE, ACK, BYE, CANCEL, OPTIONS")  // a peer without UPDATE
        _ = alice.receiveResponse(ok, now: .zero)
        let reinvite = try F.single(F.requests(alice.timerFired(.sessionRefresh, now: .seconds(900))))
        XCTAssertEqual(reinvite.method, .invite)
        XCTAssertEqual(try F.direction(reinvite.body), .sendrecv, "the same media, offered again")
        XCTAssertEqual(try reinvite.headers.sessionExpires(), SIPSessionExpires(seconds: 1_800, refresher: .uac))
    }

    func testA422RaisesTheIntervalToItsMinSEAndTheInviteGoesAgain() throws {
        var alice = F.caller(configuration(F.alice, SIPSessionTimer.Settings(sessionExpires: 120, minimumSE: 90)))
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        let bob = F.callee(invite, configuration(F.bob, SIPSessionTimer.Settings(sessionExpires: 1_800, minimumSE: 600)))
        let refusal = try XCTUnwrap(bob.sessionIntervalRefusal(), "120 s is under bob's Min-SE")
        XCTAssertEqual(refusal.statusCode, 422)
        XCTAssertEqual(try refusal.headers.minimumSE(), 600)

        let retry = try F.single(F.requests(alice.receiveResponse(refusal, now: .zero)))
        XCTAssertEqual(try retry.headers.cseq(), SIPCSeq(sequence: 2, method: .invite))
        XCTAssertEqual(try retry.headers.sessionExpires(), SIPSessionExpires(seconds: 600))
        XCTAssertEqual(try retry.headers.minimumSE(), 600)
        XCTAssertEqual(retry.body, invite.body)
        XCTAssertNil(F.callee(retry, configuration(F.bob, SIPSessionTimer.Settings(sessionExpires: 1_800, minimumSE: 600))).sessionIntervalRefusal())

        // A 422 that asks for nothing larger ends the call.
        var stubborn = F.caller()
        let first = try F.single(F.requests(stubborn.start(now: .zero)))
        var same = F.reply(first, 422)
        same.headers.add("Min-SE", "90")
        XCTAssertEqual(F.events(stubborn.receiveResponse(same, now: .zero)), [.terminated(.rejected(statusCode: 422))])
    }

    func testASessionNobodyRefreshedEndsWithABye() throws {
        var (_, bob) = try F.establishedCall()
        let expired = bob.timerFired(.sessionExpiry, now: .seconds(1_768))
        let bye = try F.single(F.requests(expired))
        XCTAssertEqual(bye.method, .bye)
        XCTAssertEqual(F.events(expired), [.terminated(.sessionExpired)])
    }

    func testAFailedReInviteRefreshIsNoHoldOrResumeFailure() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var bob = F.callee(invite)
        var ok = try F.single(F.responses(bob.accept(now: .zero)))
        ok.headers.set("Allow", "INVITE, ACK, BYE, CANCEL, OPTIONS")
        _ = alice.receiveResponse(ok, now: .zero)
        let reinvite = try F.single(F.requests(alice.timerFired(.sessionRefresh, now: .seconds(900))))
        let refused = alice.receiveResponse(F.reply(reinvite, 500), now: .seconds(900))
        XCTAssertEqual(F.events(refused), [.sessionRefreshFailed(statusCode: 500)], "the app asked for nothing: no hold or resume failed")
        XCTAssertEqual(timers(refused)[.sessionRefresh], .seconds(225), "tried again after an eighth of the interval, before the expiry")
        XCTAssertEqual(alice.state, .confirmed)
        // The next hold still offers sendonly, the next refresh sendrecv again: nothing moved.
        let next = try F.single(F.requests(alice.timerFired(.sessionRefresh, now: .seconds(900)) + alice.refresh(now: .seconds(901))))
        XCTAssertEqual(try F.direction(next.body), .sendrecv)
    }

    func testAPeerWithoutTimersLeavesTheCallerRefreshingAtItsOwnInterval() throws {
        var alice = F.caller()
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        var bob = F.callee(invite, configuration(F.bob, nil))
        let ok = try F.single(F.responses(bob.accept(now: .zero)))
        XCTAssertNil(try ok.headers.sessionExpires())
        let answered = alice.receiveResponse(ok, now: .zero)
        XCTAssertEqual(timers(answered)[.sessionRefresh], .seconds(900), "a refresh to a peer that is gone fails the call")
    }

    func testACallerWithoutTimersMakesTheCalleeTheRefresher() throws {
        var alice = F.caller(configuration(F.alice, nil))
        let invite = try F.single(F.requests(alice.start(now: .zero)))
        XCTAssertNil(try invite.headers.sessionExpires())
        XCTAssertFalse(invite.headers.lists(optionTag: "timer", in: "supported"))
        var bob = F.callee(invite)
        let accepted = bob.accept(now: .zero)
        let ok = try F.single(F.responses(accepted))
        XCTAssertEqual(try ok.headers.sessionExpires(), SIPSessionExpires(seconds: 1_800, refresher: .uas))
        XCTAssertFalse(ok.headers.lists(optionTag: "timer", in: "require"), "the caller could not honour a Require")
        XCTAssertEqual(timers(accepted)[.sessionRefresh], .seconds(900))
    }

    func testARefreshTheDialogNoLongerKnowsEndsTheCall() throws {
        var (alice, _) = try F.establishedCall()
        let update = try F.single(F.requests(alice.timerFired(.sessionRefresh, now: .seconds(900))))
        let gone = alice.receiveResponse(F.reply(update, 481), now: .seconds(900))
        XCTAssertEqual(F.requests(gone).map(\.method), [.bye])
        XCTAssertEqual(F.events(gone), [.terminated(.failed(.finalResponse(statusCode: 481)))])
    }

    func testARefreshUnderTheMinSEGets422() throws {
        var (alice, bob) = try F.establishedCall()
        var update = try F.single(F.requests(alice.timerFired(.sessionRefresh, now: .seconds(900))))
        update.headers.set("Session-Expires", "30;refresher=uac")
        let refused = try F.single(F.responses(bob.receiveRequest(update, now: .seconds(900))))
        XCTAssertEqual(refused.statusCode, 422)
        XCTAssertEqual(try refused.headers.minimumSE(), 90)
        XCTAssertEqual(bob.state, .confirmed, "the call goes on")
    }

    func testTheCalleesOwnRefreshMakesItTheRefresher() throws {
        var (alice, bob) = try F.establishedCall()
        // bob holds (a re-INVITE): it refreshes too, and bob, its UAC, now refreshes.
        let hold = try F.single(F.requests(bob.hold(now: .seconds(100))))
        XCTAssertEqual(try hold.headers.sessionExpires(), SIPSessionExpires(seconds: 1_800, refresher: .uas), "alice still refreshes, as agreed")
        var asked = hold
        asked.headers.set("Session-Expires", "1800;refresher=uac")
        let answered = alice.receiveRequest(asked, now: .seconds(100))
        let ok = try F.single(F.responses(answered))
        XCTAssertEqual(try ok.headers.sessionExpires(), SIPSessionExpires(seconds: 1_800, refresher: .uac))
        XCTAssertTrue(answered.contains(.cancelTimer(.sessionRefresh)), "alice no longer refreshes")
        XCTAssertNil(timers(answered)[.sessionRefresh])
        XCTAssertEqual(timers(answered)[.sessionExpiry], .seconds(1_768))
    }
}

/// The Session-Expires and Min-SE values (RFC 4028 §4, §5), RFC examples and malformed ones.
final class SIPSessionExpiresTests: XCTestCase {
    func testTheRFCsExamplesParseAndPrint() throws {
        XCTAssertEqual(try SIPSessionExpires(parsing: "4000;refresher=uac"), SIPSessionExpires(seconds: 4_000, refresher: .uac))
        XCTAssertEqual(try SIPSessionExpires(parsing: " 1800 ; refresher = UAS "), SIPSessionExpires(seconds: 1_800, refresher: .uas))
        XCTAssertEqual(try SIPSessionExpires(parsing: "90;x-other=1"), SIPSessionExpires(seconds: 90))
        XCTAssertEqual(SIPSessionExpires(seconds: 1_800, refresher: .uac).description, "1800;refresher=uac")
        XCTAssertEqual(try SIPSessionExpires.minimumSE(parsing: "3600"), 3_600)
        var headers = SIPHeaders()
        headers.add("x", "600")  // the compact form
        headers.add("Min-SE", "90")
        XCTAssertEqual(try headers.sessionExpires(), SIPSessionExpires(seconds: 600))
        XCTAssertEqual(try headers.minimumSE(), 90)
    }

    func testMalformedValuesAreRefused() {
        for bad in ["", "0", "-5", "abc", "1800;refresher=both", "1800 junk", "99999999999999999999", "86401", ";refresher=uac", "1800;"] {
            XCTAssertThrowsError(try SIPSessionExpires(parsing: bad), bad)
        }
        for bad in ["", "0", "x", "90 90"] {
            XCTAssertThrowsError(try SIPSessionExpires.minimumSE(parsing: bad), bad)
        }
        var twice = SIPHeaders()
        twice.add("Session-Expires", "90")
        twice.add("Session-Expires", "1800")
        XCTAssertThrowsError(try twice.sessionExpires(), "one value only")
    }
}
