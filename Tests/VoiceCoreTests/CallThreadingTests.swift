import VoiceEmbedded
import Dispatch
import Foundation
import VoiceMedia
import VoiceTestKit
import VoiceSupport
import XCTest

@testable import VoiceCore
import VoiceMediaTypes

/// Delegates that call back into the SDK, delegate-queue discipline, and many calls at once.
final class CallThreadingTests: XCTestCase {
    func testDisconnectInsideCallDidConnectDoesNotDeadlock() throws {
        let pair = try ConnectedCallPair()
        defer { pair.close() }
        pair.callerDelegate.onConnect.withLock {
            $0 = { call in
                XCTAssertEqual(call.state, .connected)
                call.disconnect()
                call.disconnect()
            }
        }
        try pair.connect()
        XCTAssertEqual(pair.callerDelegate.waitForEnd(), [.ringing, .connected, .disconnected(nil)])
        XCTAssertEqual(pair.calleeDelegate.waitForEnd(), [.connected, .disconnected(nil)])
        XCTAssertEqual(pair.caller.details.endCause, .local)
    }

    func testStatsAndActionsInsideACallbackDoNotDeadlock() throws {
        let pair = try ConnectedCallPair()
        defer { pair.close() }
        let fromCallback = Locked<[String]>([])
        let queue = pair.callerDelegate.queue
        pair.callerDelegate.onConnect.withLock {
            $0 = { call in
                // Every synchronous read and action returns at once on the delegate queue.
                _ = (call.sid, call.state, call.details, call.callQualityWarnings, call.isOnHold)
                call.isMuted = true
                call.sendDigits("1")
                _ = call.sendMessage(CallMessage(content: "{}"))
                call.getStats { report in
                    dispatchPrecondition(condition: .onQueue(queue))
                    fromCallback.withLock { $0.append("getStats:\(report != nil)") }
                    call.getStats { _ in  // and again from inside the completion
                        fromCallback.withLock { $0.append("nested") }
                    }
                }
                Task {
                    let report = await call.stats()
                    fromCallback.withLock { $0.append("stats:\(report != nil)") }
                }
            }
        }
        try pair.connect()
        XCTAssertTrue(PollingWait.until(timeout: 5) { fromCallback.withLock { $0.count } == 3 },
                      "\(fromCallback.withLock { $0 })")
        XCTAssertEqual(Set(fromCallback.withLock { $0 }), ["getStats:true", "nested", "stats:true"])
        XCTAssertTrue(PollingWait.until(timeout: 5) { pair.caller.isMuted })
        XCTAssertTrue(PollingWait.until(timeout: 5) { pair.callerMessages.sent.withLock { $0.count } == 1 })
    }

    func testDelegateCallsAndEventsArriveInTheSameOrderOnTheDelegateQueue() async throws {
        let pair = try ConnectedCallPair()
        defer { pair.close() }
        try pair.connect()
        let caller = try XCTUnwrap(pair.caller)
        let collected = Task { () -> [CallEvent] in
            var events: [CallEvent] = []
            for await event in caller.events { events.append(event) }
            return events
        }
        caller.disconnect()
        let events = await collected.value  // the stream finishes when the call is over
        // RecordingCallDelegate checks dispatchPrecondition(.onQueue) in every callback.
        XCTAssertEqual(pair.callerDelegate.waitForEnd(), [.ringing, .connected, .disconnected(nil)])
        XCTAssertEqual(events.filter { if case .qualityWarnings = $0 { false } else { true } },
                       [.ringing, .connected, .disconnected(nil)])
    }

    func testTenConcurrentCallsBetweenTwoClientsConnectAndEndCleanly() throws {
        let alice = try TestVoiceClient("alice"), bob = try TestVoiceClient("bob")
        defer {
            alice.client.shutdown()
            bob.client.shutdown()
        }
        let notifications = bob.listen()
        let calleeDelegates = Locked<[RecordingCallDelegate]>([])
        let callees = Locked<[Call]>([])
        notifications.onInvite.withLock {
            $0 = { invite in
                let delegate = RecordingCallDelegate()
                let call = invite.accept(
                    options: AcceptOptions(callInvite: invite) { builder in
                        builder.delegateQueue = delegate.queue
                        builder.audioDevice = BufferAudioDevice(captureSamples: ConnectedCallPair.tone(660), loop: true)
                    },
                    delegate: delegate)
                calleeDelegates.withLock { $0.append(delegate) }
                callees.withLock { $0.append(call) }
            }
        }
        let callerDelegates = (0..<10).map { _ in RecordingCallDelegate() }
        let callers = Locked<[Int: Call]>([:])
        // Placed from ten threads at once.
        DispatchQueue.concurrentPerform(iterations: 10) { i in
            // Each call brings its own device (calls sharing one: CallSharedAudioDeviceTests).
            let call = alice.client.connect(
                options: ConnectOptions(accessToken: CallTestTokens.token("alice")) { builder in
                    builder.params = ["To": bob.address]
                    builder.delegateQueue = callerDelegates[i].queue
                    builder.audioDevice = BufferAudioDevice(captureSamples: ConnectedCallPair.tone(440), loop: true)
                },
                delegate: callerDelegates[i])
            callers.withLock { $0[i] = call }
        }
        for delegate in callerDelegates { XCTAssertEqual(delegate.wait(for: 2), [.ringing, .connected]) }
        XCTAssertTrue(PollingWait.until(timeout: 10) {
            calleeDelegates.withLock { $0 }.count == 10 && calleeDelegates.withLock { $0 }.allSatisfy { $0.callbacks == [.connected] }
        })
        let sids = Set(callers.withLock { $0.values.map(\.sid) })
        XCTAssertEqual(sids.count, 10, "ten distinct calls")
        XCTAssertEqual(Set(callees.withLock { $0.map(\.sid) }), sids, "each accepted call is one of them")

        // Hammer each call from several threads, then end half from each side.
        let calls = callers.withLock { $0 }
        DispatchQueue.concurrentPerform(iterations: 40) { i in
            let call = calls[i % 10]!
            call.isMuted = i % 2 == 0
            _ = (call.state, call.sid, call.callQualityWarnings)
            call.getStats { _ in }
        }
        for i in 0..<5 { calls[i]?.disconnect() }
        for call in callees.withLock({ $0 }) where !Set((0..<5).compactMap { calls[$0]?.sid }).contains(call.sid) {
            call.disconnect()
        }
        for delegate in callerDelegates { XCTAssertEqual(delegate.waitForEnd(), [.ringing, .connected, .disconnected(nil)]) }
        for delegate in calleeDelegates.withLock({ $0 }) { XCTAssertEqual(delegate.waitForEnd(), [.connected, .disconnected(nil)]) }
        XCTAssertTrue(PollingWait.until(timeout: 5) {
            (try? alice.client.agent.eventLoop.submit { alice.client.calls.isEmpty }.wait()) == true
                && (try? bob.client.agent.eventLoop.submit { bob.client.calls.isEmpty && bob.client.invites.isEmpty }.wait()) == true
        }, "no call state is left behind")
    }
}
