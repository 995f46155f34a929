import XCTest
@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

/// The caller table of seed 000: every scenario with its exact outputs and state transitions.
final class CallStateMachineCallerTests: XCTestCase {
    private let busy = CallStateError(code: 31486, message: "Busy Here")
    private let transport = CallStateError(code: 31009, message: "Transport error")

    func testDisconnectBeforeRinging() {
        var d = CallStateMachineTestDriver(role: .caller)
        d.advance(200)
        XCTAssertEqual(d.apply { $0.disconnect(now: $1) }, [
            .insights(.disconnectCalled), .action(.hangUpSignaling), .action(.releaseMedia),
            .insights(.disconnectedByLocal), .callback(.didDisconnect(nil)),
        ])
        XCTAssertEqual(d.states, [.connecting, .disconnected])
        XCTAssertEqual(d.callbacks, [.didDisconnect(nil)])
        XCTAssertEqual(d.machine.endCause, .localDisconnect)
        XCTAssertEqual(d.machine.disconnectedAt, .milliseconds(1_200))
        XCTAssertNil(d.machine.connectedAt)
    }

    func testDisconnectWhileRinging() {
        var d = CallStateMachineTestDriver(role: .caller)
        d.advance(100)
        XCTAssertEqual(d.apply { $0.ringing(now: $1) }, [.insights(.ringing), .callback(.didStartRinging)])
        XCTAssertEqual(d.machine.ringingAt, .milliseconds(1_100))
        d.advance(2_000)
        d.apply { $0.disconnect(now: $1) }
        XCTAssertEqual(d.callbacks, [.didStartRinging, .didDisconnect(nil)])
        XCTAssertEqual(d.states, [.connecting, .ringing, .disconnected])
        XCTAssertEqual(d.insightsNames, ["ringing", "disconnect-called", "disconnected-by-local"])
    }

    func testFailureBeforeRinging() {
        var d = CallStateMachineTestDriver(role: .caller)
        d.advance(50)
        XCTAssertEqual(d.apply { $0.signalingFailed(busy, now: $1) }, [
            .action(.releaseMedia), .insights(.error(busy)), .callback(.didFailToConnect(busy)),
        ])
        XCTAssertEqual(d.states, [.connecting, .disconnected])
        XCTAssertEqual(d.machine.endCause, .error(busy))
    }

    func testFailureAfterRinging() {
        var d = CallStateMachineTestDriver(role: .caller)
        d.apply { $0.ringing(now: $1) }
        d.advance(5_000)
        d.apply { $0.signalingFailed(busy, now: $1) }
        XCTAssertEqual(d.callbacks, [.didStartRinging, .didFailToConnect(busy)])
        XCTAssertEqual(d.states, [.connecting, .ringing, .disconnected])
        XCTAssertEqual(d.insightsNames, ["ringing", "error"])
    }

    func testLocalMediaFailureBeforeAnswerHangsUp() {
        var d = CallStateMachineTestDriver(role: .caller)
        d.apply { $0.ringing(now: $1) }
        let noCodec = CallStateError(code: 53404, message: "No supported codec")
        XCTAssertEqual(d.apply { $0.mediaFailed(noCodec, now: $1) }, [
            .action(.hangUpSignaling), .action(.releaseMedia), .insights(.error(noCodec)),
            .callback(.didFailToConnect(noCodec)),
        ])
        XCTAssertEqual(d.states, [.connecting, .ringing, .disconnected])
    }

    private func connectedCaller() -> CallStateMachineTestDriver {
        var d = CallStateMachineTestDriver(role: .caller)
        d.advance(100)
        d.apply { $0.ringing(now: $1) }
        d.advance(900)
        XCTAssertEqual(d.apply { $0.answered(now: $1) }, [
            .insights(.acceptedByRemote), .insights(.connected), .callback(.didConnect),
        ])
        XCTAssertEqual(d.machine.connectedAt, .milliseconds(2_000))
        XCTAssertTrue(d.machine.isConnected)
        return d
    }

    func testConnectedThenEndedByCaller() {
        var d = connectedCaller()
        d.advance(10_000)
        XCTAssertEqual(d.apply { $0.disconnect(now: $1) }, [
            .insights(.disconnectCalled), .action(.hangUpSignaling), .action(.releaseMedia),
            .insights(.disconnectedByLocal), .callback(.didDisconnect(nil)),
        ])
        XCTAssertEqual(d.callbacks, [.didStartRinging, .didConnect, .didDisconnect(nil)])
        XCTAssertEqual(d.states, [.connecting, .ringing, .connected, .disconnected])
        XCTAssertEqual(d.insightsNames, [
            "ringing", "accepted-by-remote", "connected", "disconnect-called", "disconnected-by-local",
        ])
    }

    func testConnectedThenEndedByCallee() {
        var d = connectedCaller()
        d.advance(10_000)
        XCTAssertEqual(d.apply { $0.remoteHangUp(now: $1) }, [
            .action(.releaseMedia), .insights(.disconnectedByRemote), .callback(.didDisconnect(nil)),
        ])
        XCTAssertEqual(d.callbacks, [.didStartRinging, .didConnect, .didDisconnect(nil)])
        XCTAssertEqual(d.states, [.connecting, .ringing, .connected, .disconnected])
        XCTAssertEqual(d.machine.endCause, .remoteHangUp)
        XCTAssertEqual(d.machine.disconnectedAt, .milliseconds(12_000))
    }

    func testConnectedThenEndedByError() {
        var d = connectedCaller()
        d.advance(10_000)
        XCTAssertEqual(d.apply { $0.signalingFailed(transport, now: $1) }, [
            .action(.releaseMedia), .insights(.error(transport)), .callback(.didDisconnect(transport)),
        ])
        XCTAssertEqual(d.callbacks, [.didStartRinging, .didConnect, .didDisconnect(transport)])
        XCTAssertEqual(d.states, [.connecting, .ringing, .connected, .disconnected])
    }

    func testConnectedThenEndedByLocalMediaError() {
        var d = connectedCaller()
        let media = CallStateError(code: 53405, message: "Media connection failed")
        XCTAssertEqual(d.apply { $0.mediaFailed(media, now: $1) }, [
            .action(.hangUpSignaling), .action(.releaseMedia), .insights(.error(media)),
            .callback(.didDisconnect(media)),
        ])
    }

    /// answerOnBridge=false: an answer without a provisional response still rings first.
    func testAnswerWithoutProvisionalRingsImmediatelyBeforeConnect() {
        var d = CallStateMachineTestDriver(role: .caller)
        d.advance(300)
        XCTAssertEqual(d.apply { $0.answered(now: $1) }, [
            .insights(.ringing), .callback(.didStartRinging), .insights(.acceptedByRemote),
            .insights(.connected), .callback(.didConnect),
        ])
        XCTAssertEqual(d.states, [.connecting, .connected])
        XCTAssertEqual(d.machine.ringingAt, .milliseconds(1_300))
        XCTAssertEqual(d.machine.connectedAt, .milliseconds(1_300))
    }

    func testRemoteHangUpBeforeAnswerIsACancelledFailure() {
        var d = CallStateMachineTestDriver(role: .caller)
        d.apply { $0.ringing(now: $1) }
        XCTAssertEqual(d.apply { $0.remoteHangUp(now: $1) }, [
            .action(.releaseMedia), .insights(.error(.callCancelled)), .callback(.didFailToConnect(.callCancelled)),
        ])
    }

    func testSignalingLostBeforeAnswerFailsWith53001() {
        var d = CallStateMachineTestDriver(role: .caller)
        XCTAssertEqual(d.apply { $0.signalingConnectionLost(now: $1) }, [
            .action(.hangUpSignaling), .action(.releaseMedia),
            .insights(.error(.signalingConnectionDisconnected)),
            .callback(.didFailToConnect(.signalingConnectionDisconnected)),
        ])
    }

    func testNoMediaChecksBeforeConnected() {
        var d = CallStateMachineTestDriver(role: .caller)
        d.apply { $0.ringing(now: $1) }
        d.advance(60_000)
        XCTAssertEqual(d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }, [])
        XCTAssertEqual(d.apply { $0.mediaExpectationChanged(expected: false, now: $1) }, [])
        XCTAssertEqual(d.apply { $0.signalingConnectionRestored(now: $1) }, [])
        XCTAssertEqual(d.apply { $0.signalingReconnectFailed(now: $1) }, [])
        XCTAssertEqual(d.apply { $0.timerFired(.mediaReconnect, now: $1) }, [])
        XCTAssertEqual(d.machine.state, .ringing)
    }

    func testTheRingTimeoutCancelsAnUnansweredCallAtItsDeadline() {
        var configuration = CallStateMachineConfiguration()
        configuration.ringTimeout = .seconds(60)
        var d = CallStateMachineTestDriver(role: .caller, configuration: configuration)
        XCTAssertEqual(d.apply { $0.dialing(now: $1) }, [.startTimer(.ringTimeout, deadline: .milliseconds(61_000))])
        d.advance(500)
        d.apply { $0.ringing(now: $1) }
        d.advance(59_499)
        XCTAssertEqual(d.apply { $0.timerFired(.ringTimeout, now: $1) }, [], "early firings do nothing")
        d.advance(1)
        let noAnswer = CallStateError(code: 31480, message: "No answer within 60 s")
        XCTAssertEqual(d.apply { $0.timerFired(.ringTimeout, now: $1) }, [
            .action(.hangUpSignaling), .action(.releaseMedia), .insights(.error(noAnswer)), .callback(.didFailToConnect(noAnswer)),
        ])
        XCTAssertEqual(d.states, [.connecting, .ringing, .disconnected])
        XCTAssertEqual(d.machine.endingTimer, .ringTimeout)
    }

    func testAnAnswerCancelsTheRingTimeoutAndACalleeHasNone() {
        var configuration = CallStateMachineConfiguration()
        configuration.ringTimeout = .seconds(60)
        var d = CallStateMachineTestDriver(role: .caller, configuration: configuration)
        d.apply { $0.dialing(now: $1) }
        d.advance(3_000)
        XCTAssertTrue(d.apply { $0.answered(now: $1) }.contains(.cancelTimer(.ringTimeout)))
        d.advance(60_000)
        XCTAssertEqual(d.apply { $0.timerFired(.ringTimeout, now: $1) }, [])
        XCTAssertEqual(d.machine.state, .connected)
        var callee = CallStateMachineTestDriver(role: .callee, configuration: configuration)
        XCTAssertEqual(callee.apply { $0.dialing(now: $1) }, [])
    }
}
