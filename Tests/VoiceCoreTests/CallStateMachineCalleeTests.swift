import XCTest
@testable import VoiceCore
import VoiceMediaTypes
import VoiceSupport

/// The callee table (seed 002): an accepted invite never rings.
final class CallStateMachineCalleeTests: XCTestCase {
    func testDisconnectBeforeConnected() {
        var d = CallStateMachineTestDriver(role: .callee)
        d.advance(100)
        XCTAssertEqual(d.apply { $0.disconnect(now: $1) }, [
            .insights(.disconnectCalled), .action(.hangUpSignaling), .action(.releaseMedia),
            .insights(.disconnectedByLocal), .callback(.didDisconnect(nil)),
        ])
        XCTAssertEqual(d.callbacks, [.didDisconnect(nil)])
        XCTAssertEqual(d.states, [.connecting, .disconnected])
    }

    func testFailureToConnect() {
        var d = CallStateMachineTestDriver(role: .callee)
        let terminated = CallStateError(code: 31487, message: "Request Terminated")
        XCTAssertEqual(d.apply { $0.signalingFailed(terminated, now: $1) }, [
            .action(.releaseMedia), .insights(.error(terminated)), .callback(.didFailToConnect(terminated)),
        ])
        XCTAssertEqual(d.states, [.connecting, .disconnected])
    }

    func testConnectedThenEndedNormally() {
        var d = CallStateMachineTestDriver(role: .callee)
        d.advance(40)
        XCTAssertEqual(d.apply { $0.answered(now: $1) }, [.insights(.connected), .callback(.didConnect)])
        d.advance(5_000)
        d.apply { $0.remoteHangUp(now: $1) }
        XCTAssertEqual(d.callbacks, [.didConnect, .didDisconnect(nil)])
        XCTAssertEqual(d.states, [.connecting, .connected, .disconnected])
        XCTAssertEqual(d.insightsNames, ["connected", "disconnected-by-remote"])
    }

    func testConnectedThenEndedLocally() {
        var d = CallStateMachineTestDriver(role: .callee)
        d.apply { $0.answered(now: $1) }
        d.apply { $0.disconnect(now: $1) }
        XCTAssertEqual(d.callbacks, [.didConnect, .didDisconnect(nil)])
        XCTAssertEqual(d.states, [.connecting, .connected, .disconnected])
    }

    func testConnectedThenEndedByError() {
        var d = CallStateMachineTestDriver(role: .callee)
        d.apply { $0.answered(now: $1) }
        let gone = CallStateError(code: 31481, message: "Call/Transaction Does Not Exist")
        d.apply { $0.signalingFailed(gone, now: $1) }
        XCTAssertEqual(d.callbacks, [.didConnect, .didDisconnect(gone)])
        XCTAssertEqual(d.states, [.connecting, .connected, .disconnected])
    }

    func testRingingNeverFiresForAnAcceptedInvite() {
        var d = CallStateMachineTestDriver(role: .callee)
        XCTAssertEqual(d.apply { $0.ringing(now: $1) }, [])
        d.apply { $0.answered(now: $1) }
        XCTAssertEqual(d.apply { $0.ringing(now: $1) }, [])
        d.apply { $0.disconnect(now: $1) }
        XCTAssertFalse(d.callbacks.contains(.didStartRinging))
        XCTAssertFalse(d.insightsNames.contains("ringing"))
        XCTAssertFalse(d.insightsNames.contains("accepted-by-remote"))
        XCTAssertNil(d.machine.ringingAt)
        XCTAssertFalse(d.states.contains(.ringing))
    }
}
