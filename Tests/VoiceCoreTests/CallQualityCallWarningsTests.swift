import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceCore
@testable import VoiceSIP
import VoiceMediaTypes

/// The packet-loss warning end to end through a ``Call``: alice's media is steered through a
/// user-space relay that drops a fifth of her packets; bob's call raises
/// `.highPacketsLostFraction`, and clears it once alice sends directly again.
final class CallQualityCallWarningsTests: XCTestCase {
    private func mediaAddress(of call: Call) throws -> SocketAddress? {
        let endpoint = try ConnectedCallPair.onCore(call) { core -> (String, UInt16)? in
            core?.media.map { ($0.localHost, $0.localPort) }
        }
        guard let (host, port) = endpoint else { return nil }
        return try SocketAddress(host: host, port: Int(port))
    }

    /// Points `call`'s outgoing media at `remote` (as a re-INVITE to a new address would).
    private func steer(_ call: Call, to remote: SocketAddress) throws {
        try ConnectedCallPair.onCore(call) { core in core?.media?.stream?.updateRemote(remote) }
    }

    func testLossRaisesAndClearsTheWarningOnTheReceivingCall() throws {
        let pair = try ConnectedCallPair()
        defer { pair.close() }
        try pair.connect(codecs: [.pcmu])
        let caller = try XCTUnwrap(pair.caller), callee = try XCTUnwrap(pair.callee)
        let aliceMedia = try XCTUnwrap(try mediaAddress(of: caller))
        let bobMedia = try XCTUnwrap(try mediaAddress(of: callee))
        let relay = try ImpairmentProxy(
            endpointA: aliceMedia, endpointB: bobMedia, aToB: NetworkImpairment(lossRate: 0.2), bToA: .none)
        defer { relay.stop() }

        try steer(caller, to: relay.addressForA)
        // Seven one-second samples with a mean loss above 3 %.
        XCTAssertTrue(PollingWait.until(timeout: 20) { callee.callQualityWarnings.contains(.highPacketsLostFraction) },
                      "raised: \(pair.calleeDelegate.allCallbacks)")
        XCTAssertGreaterThan(relay.counts.dropped, 0)
        XCTAssertTrue(PollingWait.until(timeout: 5) {
            pair.calleeDelegate.allCallbacks.contains { if case .warnings(let w) = $0 { w.contains(.highPacketsLostFraction) } else { false } }
        }, "the delegate heard of it")

        try steer(caller, to: bobMedia)
        XCTAssertTrue(PollingWait.until(timeout: 20) { !callee.callQualityWarnings.contains(.highPacketsLostFraction) },
                      "cleared: \(pair.calleeDelegate.allCallbacks)")
        func warnings() -> [Set<CallQualityWarning>] {
            pair.calleeDelegate.allCallbacks.compactMap { if case .warnings(let w) = $0 { w } else { nil } }
        }
        func lossRuns() -> [Bool] {
            let runs = warnings().map { $0.contains(.highPacketsLostFraction) }.reduce(into: [Bool]()) { if $0.last != $1 { $0.append($1) } }
            return Array(runs.drop { !$0 })
        }
        // The call's warnings change first; the delegate hears of it afterwards, on its own queue.
        XCTAssertTrue(PollingWait.until(timeout: 5) { lossRuns().last == false }, "the delegate heard it cleared: \(warnings())")
        XCTAssertEqual(lossRuns(), [true, false], "raised once, then cleared once: \(warnings())")
        XCTAssertEqual(pair.calleeDelegate.callbacks, [.connected], "loss alone is no reconnect")

        let lossEvents = pair.bob.insights.events.filter { $0.name == "high-packets-lost-fraction" }
        XCTAssertEqual(lossEvents.map(\.group), [.networkQualityWarningRaised, .networkQualityWarningCleared])
        XCTAssertEqual(Set(lossEvents.map(\.callSid)), [callee.sid])
        XCTAssertFalse(caller.callQualityWarnings.contains(.highPacketsLostFraction), "bob's packets reach alice intact")
    }
}
