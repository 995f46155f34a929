import Foundation
import Synchronization
import VoiceEmbedded
import VoiceMedia
import VoiceService
import VoiceSupport
import VoiceTestAudio
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Preflight tests in virtual time: a client calls an ``EchoResponder`` over the in-memory
/// networks, whose delay and loss set the quality the report must rate.
final class PreflightTests: VirtualTimeTestCase {
    private final class Recorder: PreflightDelegate, @unchecked Sendable {
        let queue = DispatchQueue(label: "test.preflight")
        let events = Locked<[String]>([])
        let samples = Locked<[PreflightSample]>([])
        let report = Locked<PreflightReport?>(nil)
        let error = Locked<VoiceError?>(nil)
        init() { VirtualCallWorld.current?.watch(queue) }
        func preflightDidConnect(_ test: PreflightTest) { events.withLock { $0.append("connected") } }
        func preflight(_ test: PreflightTest, didReceiveSample sample: PreflightSample) { samples.withLock { $0.append(sample) } }
        func preflight(_ test: PreflightTest, didRaiseWarning warning: PreflightWarning) {
            events.withLock { $0.append("warning \(warning.warning)") }
        }
        func preflight(_ test: PreflightTest, didCompleteWith report: PreflightReport) {
            self.report.withLock { $0 = report }
            events.withLock { $0.append("completed") }
        }
        func preflight(_ test: PreflightTest, didFailWithError error: VoiceError) {
            self.error.withLock { $0 = error }
            events.withLock { $0.append("failed") }
        }
        var ended: Bool { events.withLock { $0.contains("completed") || $0.contains("failed") } }
    }

    /// An echo client, and a client to run the preflight from.
    private func clients() throws -> (caller: TestVoiceClient, echo: TestVoiceClient, responder: EchoResponder) {
        let echo = try TestVoiceClient("echo", world: world)
        let responder = EchoResponder(pacing: world.pacing)
        let notifications = ScriptedNotificationDelegate()
        notifications.onInvite.withLock { $0 = { responder.callInviteReceived($0) } }
        echo.listen(with: notifications)
        let caller = try TestVoiceClient("alice", world: world)
        return (caller, echo, responder)
    }

    /// Each way `oneWay` of delay, and `loss` of the datagrams coming back to the caller lost.
    private func impair(oneWay: MediaTime, lossBack loss: Double = 0, caller: TestVoiceClient) {
        let random = Mutex(SplitMix64(seed: 44))
        let callerHost = caller.client.localEndpoint.host
        world.mediaNetwork.setConditions { _, destination, _ in
            if loss > 0, destination.host == callerHost {
                let draw = random.withLock { Double($0.next() % 1_000_000) / 1_000_000 }
                if draw < loss { return nil }
            }
            return oneWay
        }
    }

    private func run(
        _ caller: TestVoiceClient, echo: TestVoiceClient, seconds: Int = 10, device: (any AudioDevice)? = nil
    ) throws -> (PreflightReport, Recorder, PreflightTest) {
        let recorder = Recorder()
        var options = PreflightOptions(destination: echo.address)
        options.duration = .seconds(seconds)
        options.delegateQueue = recorder.queue
        options.audioDevice = device ?? LoopingSignalDevice(signal: PreflightSignal.pattern, pacing: world.pacing)
        let test = caller.client.runPreflight(options: options, delegate: recorder)
        XCTAssertTrue(
            PollingWait.until(timeout: Double(seconds) + 15) { recorder.ended },
            "\(recorder.events.withLock { $0 }) \(test.state); \(caller.insights.events.map(\.qualifiedName))")
        let report = try XCTUnwrap(recorder.report.withLock { $0 }, "\(recorder.error.withLock { $0 } as Any)")
        return (report, recorder, test)
    }

    func testACleanLinkIsExcellentAndTheReportHasEveryPart() throws {
        let (caller, echo, responder) = try clients()
        let device = BufferAudioDevice(captureSamples: PreflightSignal.pattern, loop: true, pacing: world.pacing)
        let (report, recorder, test) = try run(caller, echo: echo, device: device)
        XCTAssertEqual(test.state, .completed)
        XCTAssertEqual(test.report, report)
        XCTAssertEqual(report.callQuality, .excellent, "\(report.mos as Any)")
        XCTAssertEqual(recorder.events.withLock { $0 }, ["connected", "completed"])
        XCTAssertEqual(recorder.samples.withLock { $0 }, report.samples, "each sample was delivered")
        XCTAssertEqual(report.samples.count, 10, "one a second, none twice at the end")
        XCTAssertEqual(report.samples.map(\.elapsed), report.samples.map(\.elapsed).sorted())
        XCTAssertEqual(Set(report.samples.map(\.elapsed)).count, report.samples.count)
        let mos = try XCTUnwrap(report.mos)
        XCTAssertLessThanOrEqual(mos.minimum, mos.average)
        XCTAssertLessThanOrEqual(mos.average, mos.maximum)
        XCTAssertEqual(try XCTUnwrap(report.packetsLostFraction).maximum, 0)
        XCTAssertLessThan(try XCTUnwrap(report.roundTripTimeMs).maximum, 10, "1 ms each way, read on 5 ms ticks")
        XCTAssertNotNil(report.callSid)
        // Timings: the answer, ICE, DTLS and the whole setup, in order.
        let timing = report.networkTiming
        let signaling = try XCTUnwrap(timing.signaling), setup = try XCTUnwrap(timing.peerConnection)
        XCTAssertGreaterThan(signaling, .zero)
        XCTAssertGreaterThanOrEqual(setup, signaling)
        XCTAssertNotNil(timing.ice)
        XCTAssertNotNil(timing.dtls)
        XCTAssertGreaterThanOrEqual(report.testDuration, .seconds(10))
        // The ICE candidates and the pair media used.
        XCTAssertFalse(report.localCandidates.isEmpty)
        XCTAssertFalse(report.remoteCandidates.isEmpty)
        let pair = try XCTUnwrap(report.selectedCandidatePair)
        XCTAssertGreaterThan(pair.bytesReceived, 0)
        XCTAssertEqual(report.isTURNRequired, false)
        XCTAssertEqual(report.warnings, [])
        // The echo sent back what it heard: both tones of the test signal came back.
        let heard = device.recordedSamples
        XCTAssertGreaterThan(ToneAmplitude.of(440, in: heard), 10 * ToneAmplitude.of(1_500, in: heard), "440 Hz came back")
        XCTAssertGreaterThan(ToneAmplitude.of(660, in: heard), 10 * ToneAmplitude.of(1_500, in: heard), "660 Hz came back")
        XCTAssertTrue(PollingWait.until(timeout: 5) { responder.activeCalls == 0 }, "the echo call ended")
    }

    /// Delay alone sets the rating through the E-model's delay impairment: each band in turn.
    func testEachRatingIsReachedByTheLinksDelay() throws {
        let cases: [(oneWay: Int64, rating: PreflightCallQuality)] = [(166, .great), (205, .good), (285, .fair), (450, .degraded)]
        for (oneWay, rating) in cases {
            let (caller, echo, _) = try clients()
            impair(oneWay: .milliseconds(oneWay), caller: caller)
            let (report, _, _) = try run(caller, echo: echo, seconds: 15)
            let mos = try XCTUnwrap(report.mos)
            print(String(format: "preflight at %d ms each way: MOS %.3f / %.3f / %.3f", oneWay, mos.minimum, mos.average, mos.maximum))
            XCTAssertEqual(report.callQuality, rating, "\(oneWay) ms each way: MOS \(mos), RTT \(report.roundTripTimeMs as Any)")
            XCTAssertEqual(try XCTUnwrap(report.roundTripTimeMs).average, Double(2 * oneWay), accuracy: 25)
            caller.client.shutdown()
            echo.client.shutdown()
        }
    }

    /// A lossy way back: degraded, the loss is in the figures, and the warning was raised.
    func testHeavyLossIsDegradedAndWarnedOf() throws {
        let (caller, echo, _) = try clients()
        impair(oneWay: .milliseconds(20), lossBack: 0.2, caller: caller)
        let (report, recorder, _) = try run(caller, echo: echo)
        XCTAssertEqual(report.callQuality, .degraded, "\(report.mos as Any)")
        XCTAssertEqual(try XCTUnwrap(report.packetsLostFraction).average, 0.2, accuracy: 0.06)
        XCTAssertTrue(report.warnings.contains { $0.warning == .highPacketsLostFraction }, "\(report.warnings)")
        let heard = recorder.events.withLock { $0 }.filter { $0.hasPrefix("warning ") }
        XCTAssertEqual(heard.count, report.warnings.count, "the delegate heard each warning as it was raised")
    }

    func testNobodyAnsweringFailsAndStopCancels() throws {
        let caller = try TestVoiceClient("alice", world: world)
        let recorder = Recorder()
        var options = PreflightOptions(destination: "sip:nobody@127.0.0.99:5060")
        options.delegateQueue = recorder.queue
        options.audioDevice = LoopingSignalDevice(signal: [], pacing: world.pacing)
        let test = caller.client.runPreflight(options: options, delegate: recorder)
        XCTAssertTrue(PollingWait.until(timeout: 60) { recorder.ended })
        XCTAssertEqual(test.state, .failed)
        XCTAssertEqual(recorder.error.withLock { $0 }?.code, .requestTimeout, "\(recorder.error.withLock { $0 } as Any)")
        XCTAssertNil(test.report)

        let (caller2, echo, _) = try clients()
        let stopped = Recorder()
        options = PreflightOptions(destination: echo.address)
        options.delegateQueue = stopped.queue
        options.audioDevice = LoopingSignalDevice(signal: [], pacing: world.pacing)
        let running = caller2.client.runPreflight(options: options, delegate: stopped)
        XCTAssertTrue(PollingWait.until(timeout: 10) { running.state == .connected })
        running.stop()
        XCTAssertTrue(PollingWait.until(timeout: 10) { stopped.ended })
        XCTAssertEqual(stopped.error.withLock { $0 }?.code, .callCancelled)
        XCTAssertEqual(running.state, .failed)

        var bad = PreflightOptions(destination: echo.address)
        bad.duration = .milliseconds(10)
        let refused = Recorder()
        bad.delegateQueue = refused.queue
        let test3 = caller2.client.runPreflight(options: bad, delegate: refused)
        XCTAssertTrue(PollingWait.until(timeout: 5) { refused.ended })
        XCTAssertEqual(test3.state, .failed)
        XCTAssertEqual(refused.error.withLock { $0 }?.code, .malformedRequest)
    }

    /// The echo hangs up before the test's time: that is a failure, not a short report.
    func testAnEchoThatHangsUpEarlyFailsTheTest() throws {
        let echo = try TestVoiceClient("echo", world: world)
        let responder = EchoResponder(maximumCallDuration: .seconds(2), pacing: world.pacing)
        let notifications = ScriptedNotificationDelegate()
        notifications.onInvite.withLock { $0 = { responder.callInviteReceived($0) } }
        echo.listen(with: notifications)
        let caller = try TestVoiceClient("alice", world: world)
        let recorder = Recorder()
        var options = PreflightOptions(destination: echo.address)
        options.duration = .seconds(8)
        options.delegateQueue = recorder.queue
        options.audioDevice = LoopingSignalDevice(signal: PreflightSignal.pattern, pacing: world.pacing)
        let test = caller.client.runPreflight(options: options, delegate: recorder)
        // The responder's cap runs on real time (a dispatch timer): wait for it in real time.
        XCTAssertTrue(PollingWait.until(timeout: 5) { test.state == .connected })
        Thread.sleep(forTimeInterval: 2.5)
        XCTAssertTrue(PollingWait.until(timeout: 5) { recorder.ended })
        XCTAssertEqual(test.state, .failed)
        let error = try XCTUnwrap(recorder.error.withLock { $0 })
        XCTAssertTrue(error.failureReason?.contains("hung up") == true, "\(error)")
    }

    func testRatingsFollowTwilioBands() {
        let rated = [4.3, 4.21, 4.2, 4.1, 4.05, 4.0, 3.7, 3.65, 3.1, 3.09, 1].map(PreflightCallQuality.init(averageMOS:))
        XCTAssertEqual(rated, [.excellent, .excellent, .great, .great, .good, .good, .good, .fair, .fair, .degraded, .degraded])
    }
}

/// The `async` form, in real time on loopback (an async test does not run on the thread a
/// virtual world needs).
final class PreflightAsyncTests: XCTestCase {
    func testTheAsyncFormReturnsTheReportAndStopsWhenCancelled() async throws {
        let echo = try TestVoiceClient("echo")
        let caller = try TestVoiceClient("alice")
        defer {
            caller.client.shutdown()
            echo.client.shutdown()
        }
        let responder = EchoResponder()
        let notifications = ScriptedNotificationDelegate()
        notifications.onInvite.withLock { $0 = { responder.callInviteReceived($0) } }
        echo.listen(with: notifications)
        var options = PreflightOptions(destination: echo.address)
        options.duration = .seconds(2)
        let report = try await caller.client.runPreflight(options: options)
        XCTAssertEqual(report.samples.count, 2)
        XCTAssertEqual(report.callQuality, .excellent)

        options.duration = .seconds(60)
        let client = caller.client
        let cancelled = Task { try await client.runPreflight(options: options) }
        try await Task.sleep(for: .seconds(1))
        cancelled.cancel()
        do {
            _ = try await cancelled.value
            XCTFail("a cancelled preflight returned a report")
        } catch {
            XCTAssertEqual((error as? VoiceError)?.code, .callCancelled, "\(error)")
        }
    }
}
