import VoiceEmbedded
import Foundation
import NIOCore
import VoiceSIP
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// The timing rules of a call seen through the public API, in virtual time: each test runs in
/// milliseconds and asserts the exact instant things happen (see ``VirtualTimeCalls``).
final class CallVirtualTimeTests: XCTestCase {
    func testACallWhoseMediaNeverStartsReconnectsAfterSevenSecondsAndFailsThirtySecondsLater() throws {
        let net = VirtualTimeCalls()
        let (_, _, call, aliceDelegate, bobDelegate) = try net.connectedCall()

        // No packet, RTP or RTCP, ever arrives. The watchdog ticks each second; before anything
        // arrived, silence counts from 6 s in (the first RTCP report's time), and more than
        // 3 s of it (mediaSilenceThreshold) is seen at the seventh tick.
        net.advance(6_999, settling: aliceDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected])
        net.advance(1, settling: aliceDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected, .reconnecting(.mediaConnectionError)])

        // mediaReconnectTimeout (30 s) later, the call ends with the same error and hangs up.
        net.advance(29_999, settling: aliceDelegate.queue, bobDelegate.queue)
        XCTAssertEqual(call.state, .reconnecting)
        net.advance(1, settling: aliceDelegate.queue, bobDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected, .reconnecting(.mediaConnectionError), .disconnected(.mediaConnectionError)])
        XCTAssertEqual(call.state, .disconnected)
        // Bob's media is just as silent, and his call started at the same instant: it ends with him.
        XCTAssertEqual(bobDelegate.callbacks, [.connected, .reconnecting(.mediaConnectionError), .disconnected(.mediaConnectionError)])
        let byes = net.sendTimes(of: .bye)
        XCTAssertFalse(byes.isEmpty, "the dialog was hung up")
        XCTAssertTrue(byes.allSatisfy { $0 == 37_000 }, "at the timeout, not later: \(byes)")
    }

    func testMediaThatComesBackWithinTheTimeoutReconnectsTheCallAtTheNextTick() throws {
        let net = VirtualTimeCalls()
        let (_, _, call, aliceDelegate, _) = try net.connectedCall()
        net.advance(7_000, settling: aliceDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected, .reconnecting(.mediaConnectionError)])
        try XCTUnwrap(net.latestMedia(of: "alice")).receiving = true
        net.advance(999, settling: aliceDelegate.queue)
        XCTAssertEqual(call.state, .reconnecting)
        net.advance(1, settling: aliceDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected, .reconnecting(.mediaConnectionError), .reconnected])
        XCTAssertEqual(call.state, .connected)
    }

    /// A peer that sends no RTP for a while but keeps sending RTCP receiver reports (silence
    /// suppression without comfort noise, a player not started yet) is not a broken call.
    func testAQuietPeerThatKeepsReportingIsNotReconnecting() throws {
        let net = VirtualTimeCalls()
        let (_, _, call, aliceDelegate, _) = try net.connectedCall()
        let media = try XCTUnwrap(net.latestMedia(of: "alice"))
        for second in 1...20 {
            if second % 5 == 0 { media.reported.peerReports += 1 }  // an RR every 5 s, as RFC 3550 paces them
            net.advance(1_000, settling: aliceDelegate.queue)
        }
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected], "no false reconnect")
        XCTAssertEqual(call.state, .connected)
        // The reports stop too: 12.5 s after the last (at 20 s) the path counts as silent, and
        // the silence rule (more than 3 s) applies from there.
        net.advance(15_499, settling: aliceDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected])
        net.advance(1_001, settling: aliceDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected, .reconnecting(.mediaConnectionError)])
    }

    /// Sender reports whose packet count grows while no RTP arrives: the peer sends into a broken
    /// path, and the RTP silence rule applies at once.
    func testAPeerWhoseReportsCountPacketsThatNeverArriveIsReconnecting() throws {
        let net = VirtualTimeCalls()
        let (_, _, _, aliceDelegate, _) = try net.connectedCall()
        let media = try XCTUnwrap(net.latestMedia(of: "alice"))
        media.reported.peerReports = 1
        media.reported.remoteSenderPacketCount = 0
        net.advance(1_000, settling: aliceDelegate.queue)
        media.reported.peerReports = 2
        media.reported.remoteSenderPacketCount = 150
        // Silence counts from the first report (1 s): more than 3 s of it at the tick of 5 s.
        net.advance(3_999, settling: aliceDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected])
        net.advance(1, settling: aliceDelegate.queue)
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected, .reconnecting(.mediaConnectionError)])
    }

    func testHighJitterRaisesTheWarningAtTheThirdSampleAndClearsItAtTheFifthGoodOne() throws {
        let net = VirtualTimeCalls()
        let (_, _, call, aliceDelegate, _) = try net.connectedCall()
        let media = try XCTUnwrap(net.latestMedia(of: "alice"))
        media.receiving = true
        media.reported.jitterMs = 45

        // One sample a second; three above 30 ms raise it (TVOCall: 3 of the last 5).
        net.advance(2_999, settling: aliceDelegate.queue)
        XCTAssertEqual(call.callQualityWarnings, [])
        net.advance(1, settling: aliceDelegate.queue)
        XCTAssertEqual(call.callQualityWarnings, [.highJitter])
        XCTAssertEqual(aliceDelegate.allCallbacks.last, .warnings([.highJitter]))

        // Five samples below 30 ms clear it, not four.
        media.reported.jitterMs = 5
        net.advance(4_000, settling: aliceDelegate.queue)
        XCTAssertEqual(call.callQualityWarnings, [.highJitter])
        net.advance(1_000, settling: aliceDelegate.queue)
        XCTAssertEqual(call.callQualityWarnings, [])
        XCTAssertEqual(aliceDelegate.allCallbacks.last, .warnings([]))
    }

    func testPacketLossRaisesTheWarningAtTheSeventhSampleAndClearsItSevenCleanSecondsLater() throws {
        let net = VirtualTimeCalls()
        let (_, _, call, aliceDelegate, _) = try net.connectedCall()
        let media = try XCTUnwrap(net.latestMedia(of: "alice"))
        // A fifth of the packets lost each second (the first sample reads the stream's own fraction).
        media.receivedPerRead = 40
        media.lostPerRead = 10
        media.reported.fractionLost = 0.2

        // TVOCall: the mean of the last 7 samples above 3 %, and no decision before 7 samples.
        net.advance(6_999, settling: aliceDelegate.queue)
        XCTAssertEqual(call.callQualityWarnings, [])
        net.advance(1, settling: aliceDelegate.queue)
        XCTAssertEqual(call.callQualityWarnings, [.highPacketsLostFraction])

        // Cleared when the mean of the last 7 is at most 1 %: one lossy second left in the window is too many.
        media.lostPerRead = 0
        net.advance(6_999, settling: aliceDelegate.queue)
        XCTAssertEqual(call.callQualityWarnings, [.highPacketsLostFraction])
        net.advance(1, settling: aliceDelegate.queue)
        XCTAssertEqual(call.callQualityWarnings, [])
        let warnings = aliceDelegate.allCallbacks.compactMap { if case .warnings(let w) = $0 { w } else { nil } }
        XCTAssertEqual(warnings, [[.highPacketsLostFraction], []])
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected], "loss alone is no reconnect")
        let events = try XCTUnwrap(net.insights["alice"]).events.filter { $0.name == "high-packets-lost-fraction" }
        XCTAssertEqual(events.map(\.group), [.networkQualityWarningRaised, .networkQualityWarningCleared])
        XCTAssertEqual(Set(events.map(\.callSid)), [call.sid])
    }

    func testAnInviteNobodyAnswersIsRetransmittedOnTimerAAndFailsAtTimerB() throws {
        let net = VirtualTimeCalls()
        let alice = try net.client("alice", host: "127.0.0.1")
        let delegate = RecordingCallDelegate()
        let call = net.place(from: alice, to: "sip:nobody@127.0.0.9:5060", delegate: delegate)
        // RFC 3261 §17.1.1.2 over UDP: T1 = 500 ms, doubling, for 64·T1.
        net.advance(31_999, settling: delegate.queue)
        XCTAssertEqual(net.sendTimes(of: .invite), [0, 500, 1_500, 3_500, 7_500, 15_500, 31_500])
        XCTAssertEqual(call.state, .connecting)
        net.advance(1, settling: delegate.queue)
        XCTAssertEqual(delegate.callbacks, [.failed(.requestTimeout)])
        XCTAssertEqual(call.state, .disconnected)
    }

    func testARegistrarThatNeverAnswersFailsTheRegistrationAtTimerF() throws {
        let net = VirtualTimeCalls()
        let registrar = try SIPServerAddress("sip:127.0.0.9:5060")
        let bob = try net.client("bob", host: "127.0.0.2") {
            $0.registers = true
            $0.registrar = registrar
        }
        let notifications = ScriptedNotificationDelegate()
        let result = Locked<VoiceError??>(nil)
        bob.register(accessToken: CallTestTokens.token("bob"), notificationDelegate: notifications, delegateQueue: notifications.queue) { error in
            result.withLock { $0 = .some(error) }
        }
        net.settle(notifications.queue)
        // §17.1.2.2: T1 doubling up to T2 = 4 s, for 64·T1.
        net.advance(31_999, settling: notifications.queue)
        XCTAssertEqual(net.sendTimes(of: .register), [0, 500, 1_500, 3_500, 7_500, 11_500, 15_500, 19_500, 23_500, 27_500, 31_500])
        XCTAssertTrue(result.withLock { $0 } == nil, "still waiting")
        net.advance(1, settling: notifications.queue)
        let error = try XCTUnwrap(result.withLock { $0 } ?? nil, "registration failed")
        XCTAssertEqual(error.code, .requestTimeout)
    }

    func testA200WhoseACKNeverArrivesIsRetransmittedAndTheCalleeHangsUpAtTimerH() throws {
        let net = VirtualTimeCalls()
        net.network.drops = { datagram in
            if case .request(let request)? = datagram.message { request.method == .ack } else { false }
        }
        let (_, _, call, aliceDelegate, bobDelegate) = try net.connectedCall(checkConnected: false)
        // The caller sent its ACK and is connected; the callee connects only on the ACK.
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected])
        XCTAssertEqual(bobDelegate.callbacks, [])
        try XCTUnwrap(net.latestMedia(of: "alice")).receiving = true
        // §13.3.1.4: the 200 goes again at T1, 2·T1, … capped at T2, for 64·T1 without an ACK.
        net.advance(31_999, settling: aliceDelegate.queue, bobDelegate.queue)
        XCTAssertEqual(net.sendTimes(ofStatus: 200).filter { $0 > 0 }, [500, 1_500, 3_500, 7_500, 11_500, 15_500, 19_500, 23_500, 27_500, 31_500])
        XCTAssertEqual(bobDelegate.callbacks, [])
        // Then the callee's call fails as timed out, and it ends the dialog with a BYE.
        net.advance(1, settling: aliceDelegate.queue, bobDelegate.queue)
        XCTAssertEqual(bobDelegate.callbacks, [.failed(.requestTimeout)])
        XCTAssertEqual(net.sendTimes(of: .bye), [32_000])
        XCTAssertEqual(aliceDelegate.callbacks, [.ringing, .connected, .disconnected(nil)])
        XCTAssertEqual(call.state, .disconnected)
    }

    func testANotificationWhoseInviteNeverComesExpiresAfter32Seconds() throws {
        let net = VirtualTimeCalls()
        let bob = try net.client("bob", host: "127.0.0.2")
        let pushed = ScriptedNotificationDelegate()
        let payload = [
            "twi_message_type": "twilio.voice.call", "twi_call_sid": "CA" + String(repeating: "1", count: 32),
            "twi_from": "client:alice", "twi_to": "client:bob", "twi_params": "",
        ]
        XCTAssertTrue(bob.handleNotification(payload, delegate: pushed, delegateQueue: pushed.queue))
        net.settle(pushed.queue)
        XCTAssertEqual(bob.pendingNotifications.count, 1)
        net.advance(31_999, settling: pushed.queue)
        XCTAssertEqual(bob.pendingNotifications.count, 1)
        net.advance(1, settling: pushed.queue)
        XCTAssertTrue(bob.pendingNotifications.isEmpty)

        // Nobody takes calls any more: an INVITE now is turned away with 480.
        let alice = try net.client("alice", host: "127.0.0.1")
        let delegate = RecordingCallDelegate()
        _ = net.place(from: alice, to: "sip:bob@127.0.0.2:5060", delegate: delegate)
        net.settle(delegate.queue, pushed.queue)
        XCTAssertEqual(net.sendTimes(ofStatus: 480), [32_000])
        XCTAssertEqual(delegate.callbacks, [.failed(.temporarilyUnavailable)])
        XCTAssertTrue(pushed.invites.withLock { $0.isEmpty })
    }
}
