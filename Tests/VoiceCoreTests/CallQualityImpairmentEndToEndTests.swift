import VoiceEmbedded
import Foundation
import VoiceMedia
import VoiceMediaTypes
import VoiceTestAudio
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceCore

/// Twilio's quality warnings and Sinch's call-quality events from real media: two SRTP/Opus
/// streams in virtual time through the in-memory network's impairment (delay, jitter, loss set and
/// lifted mid-call), the receiver's statistics sampled into both detectors. Samples are taken
/// four times a second instead of once to keep the tests short: the detectors count samples.
final class CallQualityImpairmentEndToEndTests: XCTestCase {
    private final class Observer {
        var sampler = CallQualitySampler()
        var warnings = CallQualityWarningDetector()
        var events = CallQualityEventDetector(configuration: CallQualityEventConfiguration(constantLevelWindow: .seconds(4)))
        var seen: [CallQualityWarningEvent] = []
        let stream: AudioStream
        /// The engine's clock: virtual time.
        let clock: any MediaClock

        init(_ stream: AudioStream, clock: any MediaClock) {
            self.stream = stream
            self.clock = clock
        }

        /// Samples until `done` holds (true) or `maxSamples` passed (false).
        func sample(maxSamples: Int, until done: (Observer) -> Bool) -> Bool {
            for _ in 0..<maxSamples {
                PollingWait.sleep(0.25)
                let stats = stream.stats
                let s = sampler.sample(from: stats, isMuted: false)
                _ = warnings.add(s, at: Date(), callSid: "CAe2e")
                seen += events.addNetworkSample(rttMs: s.rttMs, jitterMs: s.jitterMs, lossFraction: s.packetsLostFraction)
                seen += events.observeMedia(packetsReceived: stats.packetsReceived, expected: true, now: clock.now())
                seen += events.addLevels(inbound: stats.outputLevel, outbound: stats.inputLevel, now: clock.now())
                if done(self) { return true }
            }
            return false
        }
    }

    private func call(signal: [Int16] = TestSignals.speechLike(seconds: 4, amplitude: 6_000)) throws -> LoopbackCall {
        // In virtual time: the impairment is the in-memory network's.
        let call = try LoopbackCall.virtual(
            signalA: signal, signalB: signal, loop: true, record: false, impairmentAToB: NetworkImpairment(), impairmentBToA: NetworkImpairment(),
            rtcpInterval: .milliseconds(500))
        try call.start()
        return call
    }

    func testHighRoundTripTimeRaisesHighRttAndHighRemoteInboundRttAndBothClearWhenItDrops() throws {
        let call = try call()
        defer { call.stop() }
        let b = Observer(call.b, clock: call.engine.clock)
        XCTAssertTrue(b.sample(maxSamples: 12) { $0.stream.stats.rttMs != nil }, "RTT measured")
        let slow = NetworkImpairment(baseDelay: .milliseconds(260))
        call.impair(aToB: slow, bToA: slow)
        XCTAssertTrue(b.sample(maxSamples: 40) { $0.warnings.warnings.contains(.highRtt) && $0.seen.contains(.highRemoteInboundRtt(.trigger, mediaStream: .audio)) },
                      "RTT \(String(describing: b.stream.stats.rttMs)) ms: \(b.warnings.warnings), \(b.seen)")
        call.impair(aToB: NetworkImpairment(), bToA: NetworkImpairment())
        XCTAssertTrue(b.sample(maxSamples: 40) { !$0.warnings.warnings.contains(.highRtt) && $0.seen.contains(.highRemoteInboundRtt(.recover, mediaStream: .audio)) },
                      "RTT \(String(describing: b.stream.stats.rttMs)) ms: \(b.warnings.warnings), \(b.seen)")
    }

    func testHighJitterRaisesHighJitterAndHighInboundJitterAndBothClearWhenItCalms() throws {
        let call = try call()
        defer { call.stop() }
        let b = Observer(call.b, clock: call.engine.clock)
        XCTAssertFalse(b.sample(maxSamples: 8) { !$0.seen.isEmpty || !$0.warnings.warnings.isEmpty }, "a clean start: \(b.seen)")
        call.impair(aToB: NetworkImpairment(baseDelay: .milliseconds(20), jitter: .milliseconds(200)), bToA: NetworkImpairment())
        XCTAssertTrue(b.sample(maxSamples: 40) { $0.warnings.warnings.contains(.highJitter) && $0.seen.contains(.highInboundJitter(.trigger, mediaStream: .audio)) },
                      "jitter \(b.stream.stats.jitterMs) ms: \(b.warnings.warnings), \(b.seen)")
        call.impair(aToB: NetworkImpairment(), bToA: NetworkImpairment())
        XCTAssertTrue(b.sample(maxSamples: 60) { !$0.warnings.warnings.contains(.highJitter) && $0.seen.contains(.highInboundJitter(.recover, mediaStream: .audio)) },
                      "jitter \(b.stream.stats.jitterMs) ms: \(b.warnings.warnings), \(b.seen)")
    }

    func testHeavyLossRaisesLowMosAndHighInboundPacketLossAndBothClear() throws {
        let call = try call()
        defer { call.stop() }
        let b = Observer(call.b, clock: call.engine.clock)
        call.impair(aToB: NetworkImpairment(lossRate: 0.25), bToA: NetworkImpairment())
        XCTAssertTrue(b.sample(maxSamples: 40) { $0.warnings.warnings.isSuperset(of: [.lowMos, .highPacketsLostFraction]) && $0.seen.contains(.highInboundPacketLoss(.trigger, mediaStream: .audio)) },
                      "MOS \(b.stream.stats.mos): \(b.warnings.warnings), \(b.seen)")
        call.impair(aToB: NetworkImpairment(), bToA: NetworkImpairment())
        XCTAssertTrue(b.sample(maxSamples: 60) { $0.warnings.warnings.isDisjoint(with: [.lowMos, .highPacketsLostFraction]) && $0.seen.contains(.highInboundPacketLoss(.recover, mediaStream: .audio)) },
                      "MOS \(b.stream.stats.mos): \(b.warnings.warnings), \(b.seen)")
    }

    func testAMediaPathThatGoesDeadIsAMissingMediaStreamUntilPacketsFlowAgain() throws {
        let call = try call()
        defer { call.stop() }
        let b = Observer(call.b, clock: call.engine.clock)
        XCTAssertFalse(b.sample(maxSamples: 6) { $0.seen.contains(.missingMediaStream(.trigger)) })
        call.impair(aToB: NetworkImpairment(lossRate: 1), bToA: NetworkImpairment(lossRate: 1))
        XCTAssertTrue(b.sample(maxSamples: 20) { $0.seen.contains(.missingMediaStream(.trigger)) }, "\(b.seen)")
        call.impair(aToB: NetworkImpairment(), bToA: NetworkImpairment())
        XCTAssertTrue(b.sample(maxSamples: 20) { $0.seen.contains(.missingMediaStream(.recover)) }, "\(b.seen)")
    }

    func testAConstantToneRaisesConstantAudioInputLevelAndConstantAudioLevelBothWays() throws {
        // A pure tone: every frame has the same peak, sent by a and played by b.
        let call = try call(signal: TestSignals.multiTone([(1_000, 8_000)], seconds: 1))
        defer { call.stop() }
        let a = Observer(call.a, clock: call.engine.clock)
        let b = Observer(call.b, clock: call.engine.clock)
        var both = false
        for _ in 0..<40 where !both {
            _ = a.sample(maxSamples: 1) { _ in false }
            _ = b.sample(maxSamples: 1) { _ in false }
            both = a.warnings.warnings.contains(.constantAudioInputLevel) && a.seen.contains(.constantAudioLevel(.trigger, source: .outbound))
                && b.seen.contains(.constantAudioLevel(.trigger, source: .inbound))
        }
        XCTAssertTrue(both, "a: \(a.warnings.warnings) \(a.seen); b: \(b.seen)")
    }
}
