import XCTest
@testable import VoiceCore
import VoiceSupport
import VoiceMediaTypes

/// Drives a ``CallStateMachine`` on a virtual clock and records the states it passes through.
struct CallStateMachineTestDriver {
    var machine: CallStateMachine
    var clock: MediaTime
    var states: [CallState]
    var outputs: [CallStateOutput] = []

    init(role: CallStateRole, configuration: CallStateMachineConfiguration = .init()) {
        clock = .milliseconds(1_000)
        machine = CallStateMachine(role: role, configuration: configuration, now: clock)
        states = [machine.state]
    }

    /// Advances the virtual clock by `ms` milliseconds.
    mutating func advance(_ ms: Int64) { clock += .milliseconds(ms) }

    /// Applies one input at the current virtual time, records its outputs and any state change, and
    /// returns the outputs.
    @discardableResult
    mutating func apply(_ input: (inout CallStateMachine, MediaTime) -> [CallStateOutput]) -> [CallStateOutput] {
        let produced = input(&machine, clock)
        outputs += produced
        if states.last != machine.state { states.append(machine.state) }
        return produced
    }

    /// The delegate callbacks among all outputs so far.
    var callbacks: [CallStateCallback] {
        outputs.compactMap { output -> CallStateCallback? in
            guard case .callback(let callback) = output else { return nil }
            return callback
        }
    }

    /// How many callbacks ended the call (`didDisconnect` or `didFailToConnect`).
    var endingCallbackCount: Int {
        callbacks.filter { callback in
            switch callback {
            case .didDisconnect, .didFailToConnect: return true
            default: return false
            }
        }.count
    }

    /// The Insights event names among all outputs so far.
    var insightsNames: [String] {
        outputs.compactMap { output -> String? in
            guard case .insights(let event) = output else { return nil }
            return event.name
        }
    }
}

final class CallStateMachineSupportTests: XCTestCase {
    func testStateDescriptions() {
        XCTAssertEqual(CallState.allCases.map(\.description),
                       ["connecting", "ringing", "connected", "reconnecting", "disconnected"])
    }

    func testInsightsNamesMatchTheConnectionTable() {
        let events: [CallStateInsightsEvent] = [
            .ringing, .acceptedByRemote, .connected, .disconnectCalled, .disconnectedByLocal,
            .disconnectedByRemote, .error(.callCancelled), .reconnecting(.mediaConnectionError),
            .reconnected(.signaling),
        ]
        XCTAssertEqual(events.map(\.name), [
            "ringing", "accepted-by-remote", "connected", "disconnect-called", "disconnected-by-local",
            "disconnected-by-remote", "error", "reconnecting", "reconnected",
        ])
        XCTAssertTrue(events.allSatisfy { $0.group == "connection" })
        XCTAssertEqual(CallStateInsightsEvent.error(.callCancelled).error?.code, 31008)
        XCTAssertNil(CallStateInsightsEvent.connected.error)
        XCTAssertEqual(CallStateInsightsEvent.reconnecting(.signalingConnectionDisconnected).reconnectCause, .signaling)
        XCTAssertEqual(CallStateInsightsEvent.reconnected(.media).reconnectCause, .media)
        XCTAssertNil(CallStateInsightsEvent.ringing.reconnectCause)
    }

    func testErrorsAndCauses() {
        XCTAssertEqual(CallStateError.mediaConnectionError.code, 53405)
        XCTAssertEqual(CallStateError.signalingConnectionDisconnected.code, 53001)
        XCTAssertEqual(CallStateError.callCancelled.code, 31008)
        XCTAssertEqual(CallStateError(code: 31486, message: "Busy Here").description, "31486: Busy Here")
        XCTAssertEqual(CallStateReconnectCause.media.error, .mediaConnectionError)
        XCTAssertEqual(CallStateReconnectCause.signaling.error, .signalingConnectionDisconnected)
        XCTAssertEqual(CallStateReconnectCause.media.description, "media")
    }

    func testConfigurationDefaultsAndFloor() {
        let defaults = CallStateMachineConfiguration()
        XCTAssertEqual(defaults.mediaSilenceThreshold, .milliseconds(3_000))
        XCTAssertEqual(defaults.mediaReconnectTimeout, .milliseconds(30_000))
        XCTAssertEqual(defaults.signalingReconnectTimeout, .milliseconds(30_000))
        let floored = CallStateMachineConfiguration(
            mediaSilenceThreshold: .zero, mediaReconnectTimeout: .milliseconds(-5), signalingReconnectTimeout: .zero)
        XCTAssertEqual(floored.mediaSilenceThreshold, .milliseconds(1))
        XCTAssertEqual(floored.mediaReconnectTimeout, .milliseconds(1))
        XCTAssertEqual(floored.signalingReconnectTimeout, .milliseconds(1))
    }

    func testNewMachineIsConnectingWithNoTimestamps() {
        let machine = CallStateMachine(role: .caller, now: .milliseconds(7))
        XCTAssertEqual(machine.state, .connecting)
        XCTAssertEqual(machine.createdAt, .milliseconds(7))
        XCTAssertNil(machine.ringingAt)
        XCTAssertNil(machine.connectedAt)
        XCTAssertNil(machine.disconnectedAt)
        XCTAssertNil(machine.endCause)
        XCTAssertFalse(machine.isConnected)
        XCTAssertFalse(machine.isDisconnected)
        XCTAssertTrue(machine.reconnectCauses.isEmpty)
    }
}
