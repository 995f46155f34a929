import XCTest
@testable import VoiceCore
import VoiceSupport
import VoiceMediaTypes

/// Inputs in odd orders: late, duplicated, or after the end. None may produce a second end or a
/// callback out of sequence.
final class CallStateMachineOrderingTests: XCTestCase {
    private let busy = CallStateError(code: 31486, message: "Busy Here")

    /// Every input the machine accepts, each applied at `now`.
    private let allInputs: [(String, (inout CallStateMachine, MediaTime) -> [CallStateOutput])] = [
        ("ringing", { $0.ringing(now: $1) }),
        ("answered", { $0.answered(now: $1) }),
        ("disconnect", { $0.disconnect(now: $1) }),
        ("remoteHangUp", { $0.remoteHangUp(now: $1) }),
        ("signalingFailed", { $0.signalingFailed(CallStateError(code: 31500, message: "Internal Server Error"), now: $1) }),
        ("mediaFailed", { $0.mediaFailed(CallStateError(code: 53402, message: "Remote description"), now: $1) }),
        ("tick", { $0.tick(now: $1, lastMediaPacketAt: nil) }),
        ("tickWithMedia", { $0.tick(now: $1, lastMediaPacketAt: $1) }),
        ("holdOn", { $0.mediaExpectationChanged(expected: false, now: $1) }),
        ("holdOff", { $0.mediaExpectationChanged(expected: true, now: $1) }),
        ("signalingLost", { $0.signalingConnectionLost(now: $1) }),
        ("signalingRestored", { $0.signalingConnectionRestored(now: $1) }),
        ("signalingReconnectFailed", { $0.signalingReconnectFailed(now: $1) }),
        ("mediaTimer", { $0.timerFired(.mediaReconnect, now: $1) }),
        ("signalingTimer", { $0.timerFired(.signalingReconnect, now: $1) }),
    ]

    func testEveryInputAfterDisconnectedIsIgnored() {
        let endings: [(String, (inout CallStateMachine, MediaTime) -> [CallStateOutput])] = [
            ("local", { $0.disconnect(now: $1) }),
            ("remote", { $0.remoteHangUp(now: $1) }),
            ("failure", { $0.signalingFailed(CallStateError(code: 31603, message: "Decline"), now: $1) }),
        ]
        for role in [CallStateRole.caller, .callee] {
            for connectFirst in [false, true] {
                for (endName, ending) in endings {
                    var d = CallStateMachineTestDriver(role: role)
                    if connectFirst { d.apply { $0.answered(now: $1) } }
                    d.apply(ending)
                    let ended = d.machine
                    XCTAssertEqual(ended.state, .disconnected)
                    for (name, input) in allInputs {
                        d.advance(100_000)
                        XCTAssertEqual(d.apply(input), [], "\(role) \(endName) then \(name)")
                    }
                    XCTAssertEqual(d.machine, ended, "\(role) \(endName): nothing changes after the end")
                    XCTAssertEqual(d.endingCallbackCount, 1)
                }
            }
        }
    }

    func testDisconnectIsIdempotent() {
        var d = CallStateMachineTestDriver(role: .caller)
        d.apply { $0.answered(now: $1) }
        XCTAssertFalse(d.apply { $0.disconnect(now: $1) }.isEmpty)
        XCTAssertEqual(d.apply { $0.disconnect(now: $1) }, [])
        XCTAssertEqual(d.apply { $0.disconnect(now: $1) }, [])
        XCTAssertEqual(d.insightsNames.filter { $0 == "disconnect-called" }.count, 1)
    }

    func testAnswerAfterDisconnectIsIgnored() {
        var d = CallStateMachineTestDriver(role: .caller)
        d.apply { $0.ringing(now: $1) }
        d.apply { $0.disconnect(now: $1) }
        d.advance(30)
        XCTAssertEqual(d.apply { $0.answered(now: $1) }, [], "a 2xx crossing the CANCEL")
        XCTAssertEqual(d.callbacks, [.didStartRinging, .didDisconnect(nil)])
        XCTAssertEqual(d.states, [.connecting, .ringing, .disconnected])
    }

    func testFailureAfterConnectedIsADisconnectWithError() {
        var d = CallStateMachineTestDriver(role: .caller)
        d.apply { $0.ringing(now: $1) }
        d.apply { $0.answered(now: $1) }
        d.apply { $0.signalingFailed(busy, now: $1) }
        XCTAssertEqual(d.callbacks, [.didStartRinging, .didConnect, .didDisconnect(busy)])
    }

    func testDuplicateRingingAndAnswerAreIgnored() {
        var d = CallStateMachineTestDriver(role: .caller)
        d.apply { $0.ringing(now: $1) }
        d.advance(10)
        XCTAssertEqual(d.apply { $0.ringing(now: $1) }, [], "a second 180")
        XCTAssertEqual(d.machine.ringingAt, .milliseconds(1_000))
        d.apply { $0.answered(now: $1) }
        d.advance(10)
        XCTAssertEqual(d.apply { $0.answered(now: $1) }, [], "a retransmitted 2xx")
        XCTAssertEqual(d.apply { $0.ringing(now: $1) }, [], "a late 180")
        XCTAssertEqual(d.machine.connectedAt, .milliseconds(1_010))
        XCTAssertEqual(d.callbacks, [.didStartRinging, .didConnect])
    }

    func testAnswerWhileReconnectingIsIgnored() {
        var d = CallStateMachineTestDriver(role: .callee)
        d.apply { $0.answered(now: $1) }
        d.apply { $0.signalingConnectionLost(now: $1) }
        XCTAssertEqual(d.apply { $0.answered(now: $1) }, [])
        XCTAssertEqual(d.machine.state, .reconnecting)
    }

    func testRestoreWithoutLossAndTimersNeverStartedAreIgnored() {
        var d = CallStateMachineTestDriver(role: .caller)
        d.apply { $0.answered(now: $1) }
        d.advance(100_000)
        XCTAssertEqual(d.apply { $0.signalingConnectionRestored(now: $1) }, [])
        XCTAssertEqual(d.apply { $0.signalingReconnectFailed(now: $1) }, [])
        XCTAssertEqual(d.apply { $0.timerFired(.mediaReconnect, now: $1) }, [])
        XCTAssertEqual(d.apply { $0.timerFired(.signalingReconnect, now: $1) }, [])
        XCTAssertEqual(d.machine.state, .connected)
    }

    func testEveryStartedTimerIsCancelledOrFiresBeforeTheEnd() {
        var d = CallStateMachineTestDriver(role: .caller)
        d.apply { $0.answered(now: $1) }
        d.apply { $0.signalingConnectionLost(now: $1) }
        d.advance(3_500)
        d.apply { $0.tick(now: $1, lastMediaPacketAt: nil) }
        d.advance(1_000)
        d.apply { $0.tick(now: $1, lastMediaPacketAt: $1) }
        d.apply { $0.remoteHangUp(now: $1) }
        var running = Set<CallStateTimer>()
        for output in d.outputs {
            switch output {
            case .startTimer(let timer, _): running.insert(timer)
            case .cancelTimer(let timer): XCTAssertNotNil(running.remove(timer), "cancelled \(timer) that was not running")
            default: break
            }
        }
        XCTAssertTrue(running.isEmpty, "left running: \(running)")
    }
}
