import XCTest
@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

/// Reconnection on a virtual clock: media silence and lost signaling, recovered or timed out.
final class CallStateMachineReconnectTests: XCTestCase {
    /// A caller connected at t = 2 s with the default thresholds (3 s silence, 30 s timeouts).
    private func connected(_ configuration: CallStateMachineConfiguration = .init()) -> CallStateMachineTestDriver {
        var d = CallStateMachineTestDriver(role: .caller, configuration: configuration)
        d.advance(1_000)
        d.apply { $0.answered(now: $1) }
        d.outputs = []
        XCTAssertEqual(d.clock, .milliseconds(2_000))
        return d
    }

    func testSilenceBeyondThresholdStartsMediaReconnect() {
        var d = connected()
        // Packets flow for 5 s, one tick a second.
        for _ in 0..<5 {
            d.advance(1_000)
            XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: $1 - .milliseconds(20)) }, [])
        }
        let lastPacket = d.clock - .milliseconds(20)   // 6.98 s
        d.advance(2_980)                                // exactly 3 s of silence: not beyond
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: lastPacket) }, [])
        d.advance(1)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: lastPacket) }, [
            .startTimer(.mediaReconnect, deadline: d.clock + .milliseconds(30_000)),
            .insights(.reconnecting(.mediaConnectionError)), .callback(.isReconnecting(.mediaConnectionError)),
        ])
        XCTAssertEqual(d.machine.state, .reconnecting)
        XCTAssertFalse(d.machine.isConnected)
        XCTAssertEqual(d.machine.reconnectCauses, [.media])
        // Still silent: nothing more.
        d.advance(1_000)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: lastPacket) }, [])
    }

    func testSilenceFromConnectWhenNoPacketEverArrives() {
        var d = connected()
        d.advance(3_000)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }, [])
        d.advance(1)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }.last, .callback(.isReconnecting(.mediaConnectionError)))
    }

    func testEarlyMediaBeforeConnectDoesNotCountAsSilence() {
        var d = connected()
        d.advance(2_500)
        // A packet from before the answer: silence is still measured from the connect time.
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: .milliseconds(1_500)) }, [])
    }

    func testMediaResumesThenReconnects() {
        var d = connected()
        d.advance(4_000)
        d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }
        let deadline = d.clock + .milliseconds(30_000)
        d.advance(7_000)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: $1 - .milliseconds(5)) }, [
            .cancelTimer(.mediaReconnect), .insights(.reconnected(.media)), .callback(.didReconnect),
        ])
        XCTAssertEqual(d.machine.state, .connected)
        XCTAssertTrue(d.machine.reconnectCauses.isEmpty)
        XCTAssertEqual(d.callbacks, [.isReconnecting(.mediaConnectionError), .didReconnect])
        XCTAssertEqual(d.states, [.connecting, .connected, .reconnecting, .connected])
        // The old deadline firing late does nothing.
        d.clock = deadline
        XCTAssertEqual(d.apply { $0.timerFired(.mediaReconnect, now: $1) }, [])
        // A second outage is detected again, measured from the recovery.
        let resumedAt = d.clock
        d.advance(1_000)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: resumedAt) }, [])
        d.advance(2_001)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: resumedAt) }.last,
                       .callback(.isReconnecting(.mediaConnectionError)))
    }

    /// RFC 7675: consent lost means our media stopped. Reconnecting as for silence, though the
    /// peer's packets still arrive; only consent coming back recovers; without it, 53405.
    func testLostConsentReconnectsUntilItReturnsWhateverArrives() {
        var d = connected()
        d.advance(1_000)
        XCTAssertEqual(d.apply { $0.mediaPathLost(now: $1) }, [
            .startTimer(.mediaReconnect, deadline: d.clock + .milliseconds(30_000)),
            .insights(.reconnecting(.mediaConnectionError)), .callback(.isReconnecting(.mediaConnectionError)),
        ])
        XCTAssertEqual(d.apply { $0.mediaPathLost(now: $1) }, [], "once")
        for _ in 0..<3 {
            d.advance(1_000)
            XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: $1 - .milliseconds(20)) }, [], "the peer's packets do not recover it")
        }
        XCTAssertEqual(d.apply { $0.mediaPathRestored(now: $1) }, [
            .cancelTimer(.mediaReconnect), .insights(.reconnected(.media)), .callback(.didReconnect),
        ])
        XCTAssertEqual(d.apply { $0.mediaPathRestored(now: $1) }, [])
        XCTAssertEqual(d.states, [.connecting, .connected, .reconnecting, .connected])

        d.advance(1_000)
        d.apply { $0.mediaPathLost(now: $1) }
        d.advance(30_000)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: $1 - .milliseconds(20)) }.last,
                       .callback(.didDisconnect(.mediaConnectionError)))
        XCTAssertEqual(d.machine.endCause, .error(.mediaConnectionError))
    }

    func testConsentLostDuringASilenceReconnectionKeepsItUntilConsentReturns() {
        var d = connected()
        d.advance(3_500)
        d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }
        XCTAssertEqual(d.machine.reconnectCauses, [.media])
        XCTAssertEqual(d.apply { $0.mediaPathLost(now: $1) }, [], "already reconnecting")
        d.advance(1_000)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: $1) }, [], "packets alone do not recover it now")
        XCTAssertEqual(d.apply { $0.mediaPathRestored(now: $1) }.last, .callback(.didReconnect))
        XCTAssertEqual(d.machine.state, .connected)
    }

    func testMediaTimeoutDisconnectsWith53405() {
        var d = connected()
        d.advance(3_500)
        d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }
        d.advance(29_999)
        XCTAssertEqual(d.apply { $0.timerFired(.mediaReconnect, now: $1) }, [], "early firing is ignored")
        d.advance(1)
        XCTAssertEqual(d.apply { $0.timerFired(.mediaReconnect, now: $1) }, [
            .action(.hangUpSignaling), .action(.releaseMedia), .insights(.error(.mediaConnectionError)),
            .callback(.didDisconnect(.mediaConnectionError)),
        ])
        XCTAssertEqual(d.states, [.connecting, .connected, .reconnecting, .disconnected])
        XCTAssertEqual(d.machine.endCause, .error(.mediaConnectionError))
        XCTAssertEqual(d.apply { $0.timerFired(.mediaReconnect, now: $1) }, [])
    }

    func testMediaTimeoutThroughTickAlone() {
        var d = connected()
        d.advance(3_500)
        d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }
        d.advance(31_000)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }.last,
                       .callback(.didDisconnect(.mediaConnectionError)))
    }

    func testPacketBeforeDeadlineReportedAfterItStillRecovers() {
        var d = connected()
        d.advance(3_500)
        d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }
        let deadline = d.clock + .milliseconds(30_000)
        d.clock = deadline + .milliseconds(500)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: deadline - .milliseconds(10)) }, [
            .cancelTimer(.mediaReconnect), .insights(.reconnected(.media)), .callback(.didReconnect),
        ])
        XCTAssertEqual(d.machine.state, .connected)
    }

    func testPacketAfterDeadlineDoesNotRecover() {
        var d = connected()
        d.advance(3_500)
        d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }
        let deadline = d.clock + .milliseconds(30_000)
        d.clock = deadline + .milliseconds(500)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: deadline + .milliseconds(100)) }.last,
                       .callback(.didDisconnect(.mediaConnectionError)))
    }

    func testConfiguredThresholds() {
        var d = connected(CallStateMachineConfiguration(
            mediaSilenceThreshold: .milliseconds(500), mediaReconnectTimeout: .milliseconds(2_000)))
        d.advance(501)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }.first,
                       .startTimer(.mediaReconnect, deadline: d.clock + .milliseconds(2_000)))
    }

    func testSignalingLostThenRestored() {
        var d = connected()
        d.advance(1_000)
        XCTAssertEqual(d.apply { $0.signalingConnectionLost(now: $1) }, [
            .action(.reInviteAfterSignalingReconnect),
            .startTimer(.signalingReconnect, deadline: d.clock + .milliseconds(30_000)),
            .insights(.reconnecting(.signalingConnectionDisconnected)),
            .callback(.isReconnecting(.signalingConnectionDisconnected)),
        ])
        XCTAssertEqual(d.machine.state, .reconnecting)
        XCTAssertEqual(d.apply { $0.signalingConnectionLost(now: $1) }, [], "a duplicate loss is ignored")
        d.advance(2_000)
        XCTAssertEqual(d.apply { $0.signalingConnectionRestored(now: $1) }, [
            .cancelTimer(.signalingReconnect), .insights(.reconnected(.signaling)), .callback(.didReconnect),
        ])
        XCTAssertEqual(d.apply { $0.signalingConnectionRestored(now: $1) }, [], "a duplicate restore is ignored")
        XCTAssertEqual(d.states, [.connecting, .connected, .reconnecting, .connected])
    }

    func testSignalingReconnectFailureDisconnectsWith53001() {
        var d = connected()
        d.apply { $0.signalingConnectionLost(now: $1) }
        d.advance(4_000)
        XCTAssertEqual(d.apply { $0.signalingReconnectFailed(now: $1) }, [
            .cancelTimer(.signalingReconnect), .action(.hangUpSignaling), .action(.releaseMedia),
            .insights(.error(.signalingConnectionDisconnected)),
            .callback(.didDisconnect(.signalingConnectionDisconnected)),
        ])
        XCTAssertEqual(d.states, [.connecting, .connected, .reconnecting, .disconnected])
    }

    func testSignalingReconnectTimeoutDisconnectsWith53001() {
        var d = connected()
        d.apply { $0.signalingConnectionLost(now: $1) }
        d.advance(30_000)
        XCTAssertEqual(d.apply { $0.timerFired(.signalingReconnect, now: $1) }, [
            .action(.hangUpSignaling), .action(.releaseMedia),
            .insights(.error(.signalingConnectionDisconnected)),
            .callback(.didDisconnect(.signalingConnectionDisconnected)),
        ])
    }

    /// Seed 000's example: one network change, signaling then media, two isReconnecting/didReconnect pairs.
    func testSeedExampleSequenceSignalingThenMedia() {
        var d = connected()
        d.advance(1_000)
        d.apply { $0.tick(now: $1, lastMediaPacketAt: $1) }
        let lastPacket = d.clock
        d.apply { $0.signalingConnectionLost(now: $1) }
        d.advance(1_000)
        d.apply { $0.signalingConnectionRestored(now: $1) }
        XCTAssertEqual(d.machine.state, .connected)
        d.advance(2_500)
        d.apply { $0.tick(now: $1, lastMediaPacketAt: lastPacket) }
        XCTAssertEqual(d.machine.state, .reconnecting)
        d.advance(1_000)
        d.apply { $0.tick(now: $1, lastMediaPacketAt: $1) }
        XCTAssertEqual(d.callbacks, [
            .isReconnecting(.signalingConnectionDisconnected), .didReconnect,
            .isReconnecting(.mediaConnectionError), .didReconnect,
        ])
        XCTAssertEqual(d.insightsNames, ["reconnecting", "reconnected", "reconnecting", "reconnected"])
        XCTAssertEqual(d.states, [.connecting, .connected, .reconnecting, .connected, .reconnecting, .connected])
    }

    func testOverlappingCausesStayReconnectingUntilBothRecover() {
        var d = connected()
        d.apply { $0.signalingConnectionLost(now: $1) }
        d.advance(3_500)
        d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }
        XCTAssertEqual(d.machine.reconnectCauses, [.media, .signaling])
        d.advance(500)
        d.apply { $0.tick(now: $1, lastMediaPacketAt: $1) }
        XCTAssertEqual(d.machine.state, .reconnecting, "signaling is still recovering")
        XCTAssertEqual(d.machine.reconnectCauses, [.signaling])
        d.advance(500)
        d.apply { $0.signalingConnectionRestored(now: $1) }
        XCTAssertEqual(d.machine.state, .connected)
        XCTAssertEqual(d.callbacks, [
            .isReconnecting(.signalingConnectionDisconnected), .isReconnecting(.mediaConnectionError),
            .didReconnect, .didReconnect,
        ])
        XCTAssertEqual(d.states, [.connecting, .connected, .reconnecting, .connected])
    }

    func testDisconnectWhileReconnectingEndsNormallyAndCancelsTimers() {
        var d = connected()
        d.apply { $0.signalingConnectionLost(now: $1) }
        d.advance(3_500)
        d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }
        XCTAssertEqual(d.apply { $0.disconnect(now: $1) }, [
            .insights(.disconnectCalled), .cancelTimer(.mediaReconnect), .cancelTimer(.signalingReconnect),
            .action(.hangUpSignaling), .action(.releaseMedia), .insights(.disconnectedByLocal),
            .callback(.didDisconnect(nil)),
        ])
        XCTAssertTrue(d.machine.reconnectCauses.isEmpty)
        d.advance(40_000)
        XCTAssertEqual(d.apply { $0.timerFired(.signalingReconnect, now: $1) }, [])
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: $1) }, [])
    }

    func testRemoteHangUpWhileReconnectingEndsNormally() {
        var d = connected()
        d.apply { $0.signalingConnectionLost(now: $1) }
        XCTAssertEqual(d.apply { $0.remoteHangUp(now: $1) }, [
            .cancelTimer(.signalingReconnect), .action(.releaseMedia), .insights(.disconnectedByRemote),
            .callback(.didDisconnect(nil)),
        ])
    }

    func testHoldSuspendsSilenceDetection() {
        var d = connected()
        d.advance(1_000)
        XCTAssertEqual(d.apply { $0.mediaExpectationChanged(expected: false, now: $1) }, [])
        d.advance(60_000)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }, [])
        XCTAssertEqual(d.apply { $0.mediaExpectationChanged(expected: true, now: $1) }, [])
        d.advance(3_000)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }, [], "silence measured from the resume")
        d.advance(1)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }.last,
                       .callback(.isReconnecting(.mediaConnectionError)))
    }

    func testHoldDuringMediaReconnectCountsAsRecovered() {
        var d = connected()
        d.advance(3_500)
        d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }
        XCTAssertEqual(d.apply { $0.mediaExpectationChanged(expected: false, now: $1) }, [
            .cancelTimer(.mediaReconnect), .insights(.reconnected(.media)), .callback(.didReconnect),
        ])
        XCTAssertEqual(d.machine.state, .connected)
        XCTAssertEqual(d.apply { $0.mediaExpectationChanged(expected: false, now: $1) }, [], "no change, no output")
    }

    func testSignalingLossDuringHoldStillReconnects() {
        var d = connected()
        d.apply { $0.mediaExpectationChanged(expected: false, now: $1) }
        XCTAssertEqual(d.apply { $0.signalingConnectionLost(now: $1) }.last,
                       .callback(.isReconnecting(.signalingConnectionDisconnected)))
    }
}
