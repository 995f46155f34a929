import XCTest
import VoiceSupport

@testable import VoiceCore

/// Each Sinch call-quality rule on a virtual clock, with its exact trigger and recovery.
final class CallQualityEventDetectorTests: XCTestCase {
    typealias Event = CallQualityWarningEvent

    func testRttTriggersAboveThreeHundredAndRecoversBelow() {
        var d = CallQualityEventDetector()
        XCTAssertEqual(d.addNetworkSample(rttMs: nil, jitterMs: 0, lossFraction: 0), [], "not measured yet")
        XCTAssertEqual(d.addNetworkSample(rttMs: 300, jitterMs: 0, lossFraction: 0), [], "exactly 300 is not above")
        XCTAssertEqual(d.addNetworkSample(rttMs: 301, jitterMs: 0, lossFraction: 0), [.highRemoteInboundRtt(.trigger, mediaStream: .audio)])
        XCTAssertEqual(d.addNetworkSample(rttMs: 900, jitterMs: 0, lossFraction: 0), [], "once")
        XCTAssertEqual(d.addNetworkSample(rttMs: 300, jitterMs: 0, lossFraction: 0), [], "exactly 300 is not below")
        XCTAssertEqual(d.addNetworkSample(rttMs: 299, jitterMs: 0, lossFraction: 0), [.highRemoteInboundRtt(.recover, mediaStream: .audio)])
    }

    func testJitterTriggersOnThreeOfTheLastFourAndRecoversWhenThatNoLongerHolds() {
        var d = CallQualityEventDetector()
        let jitter: [Double] = [40, 10, 40, 40, 10, 40, 10, 10]
        let events = jitter.map { d.addNetworkSample(rttMs: nil, jitterMs: $0, lossFraction: 0) }
        // Windows: [40] [40,10] [40,10,40] [40,10,40,40]: 3 bad → trigger at the 4th sample;
        // [10,40,40,10] 2 bad → recover at the 5th; [40,40,10,40] 3 → trigger at the 6th; then recover at the 7th.
        XCTAssertEqual(events, [[], [], [], [.highInboundJitter(.trigger, mediaStream: .audio)], [.highInboundJitter(.recover, mediaStream: .audio)],
                                [.highInboundJitter(.trigger, mediaStream: .audio)], [.highInboundJitter(.recover, mediaStream: .audio)], []])
    }

    func testLossTriggersAboveOnePercentInThreeOfTheLastFour() {
        var d = CallQualityEventDetector()
        let loss: [Double] = [0.01, 0.02, 0.02, 0.02, 0, 0]
        let events = loss.map { d.addNetworkSample(rttMs: nil, jitterMs: 0, lossFraction: $0) }
        XCTAssertEqual(events, [[], [], [], [.highInboundPacketLoss(.trigger, mediaStream: .audio)], [], [.highInboundPacketLoss(.recover, mediaStream: .audio)]],
                       "exactly 1 % is not above; [.02,.02,.02,0] still has three")
    }

    func testMissingMediaTriggersAfterTheWindowWithoutPacketsAndRecoversWithTheNext() {
        var d = CallQualityEventDetector()
        let t0 = MediaTime.seconds(10)
        XCTAssertEqual(d.observeMedia(packetsReceived: 50, expected: true, now: t0), [])
        XCTAssertEqual(d.observeMedia(packetsReceived: 50, expected: true, now: t0 + .milliseconds(1_999)), [])
        XCTAssertEqual(d.observeMedia(packetsReceived: 50, expected: true, now: t0 + .seconds(2)), [.missingMediaStream(.trigger)])
        XCTAssertEqual(d.observeMedia(packetsReceived: 50, expected: true, now: t0 + .seconds(5)), [])
        XCTAssertEqual(d.observeMedia(packetsReceived: 51, expected: true, now: t0 + .seconds(6)), [.missingMediaStream(.recover)])
        // Held: the peer is not expected to send; silence then is no missing media.
        XCTAssertEqual(d.observeMedia(packetsReceived: 51, expected: false, now: t0 + .seconds(7)), [])
        XCTAssertEqual(d.observeMedia(packetsReceived: 51, expected: false, now: t0 + .seconds(20)), [])
        XCTAssertEqual(d.observeMedia(packetsReceived: 51, expected: true, now: t0 + .seconds(21)), [], "the window starts when sending is expected again")
        XCTAssertEqual(d.observeMedia(packetsReceived: 51, expected: true, now: t0 + .seconds(23)), [.missingMediaStream(.trigger)])
        XCTAssertEqual(d.observeMedia(packetsReceived: 51, expected: false, now: t0 + .seconds(24)), [.missingMediaStream(.recover)])
    }

    func testZeroLevelTriggersOnceTwoSecondsOfMeasurementsAreAllZero() {
        var d = CallQualityEventDetector()
        var events: [(MediaTime, [Event])] = []
        // Five measurements a second; outbound speaks (varying), inbound is digital silence until 3 s.
        for i in 0...20 {
            let t = MediaTime.milliseconds(Int64(i * 200))
            let inbound = i <= 15 ? (i % 2) * 8 : 4_000  // a decoder's digital silence: a sample or two of noise
            let outbound = 1_000 + (i % 2) * 3_000
            let e = d.addLevels(inbound: inbound, outbound: outbound, now: t)
            if !e.isEmpty { events.append((t, e)) }
        }
        XCTAssertEqual(events.map(\.0), [.seconds(2), .milliseconds(3_200)])
        XCTAssertEqual(events.map(\.1), [[.zeroAudioLevel(.trigger, source: .inbound)], [.zeroAudioLevel(.recover, source: .inbound)]])
    }

    func testConstantLevelTriggersAfterTwentySecondsBelowHalfAPercentAndRecoversWhenItMoves() {
        var d = CallQualityEventDetector()
        var seen: [(MediaTime, [Event])] = []
        // Outbound: a steady tone (level 8000 ± 100, std. dev. 100 < 163.8) for 30 s, then speech.
        for i in 0...175 {
            let t = MediaTime.milliseconds(Int64(i * 200))
            let outbound = i < 150 ? 8_000 + (i % 2 == 0 ? 100 : -100) : (i % 3) * 9_000
            let e = d.addLevels(inbound: 2_000 + (i % 4) * 2_000, outbound: outbound, now: t)
            if !e.isEmpty { seen.append((t, e)) }
        }
        XCTAssertEqual(seen.first?.0, .seconds(20), "the window must be covered first")
        XCTAssertEqual(seen.first?.1, [.constantAudioLevel(.trigger, source: .outbound)])
        XCTAssertEqual(seen.last?.0, .seconds(30), "the first varied measurement breaks it")
        XCTAssertEqual(seen.last?.1, [.constantAudioLevel(.recover, source: .outbound)])
        XCTAssertEqual(seen.count, 2, "inbound varies throughout: \(seen)")
    }

    func testAMutedDirectionStartsOverAndRecoversWhatItHadTriggered() {
        var d = CallQualityEventDetector()
        for i in 0...10 { _ = d.addLevels(inbound: 500 * (i % 3), outbound: 0, now: .milliseconds(Int64(i * 200))) }
        XCTAssertEqual(d.addLevels(inbound: 1_000, outbound: nil, now: .milliseconds(2_200)), [.zeroAudioLevel(.recover, source: .outbound)])
        XCTAssertEqual(d.addLevels(inbound: 1_000, outbound: 0, now: .milliseconds(2_400)), [])
        XCTAssertEqual(d.addLevels(inbound: 2_000, outbound: 0, now: .milliseconds(4_200)), [])
        XCTAssertEqual(d.addLevels(inbound: 1_000, outbound: 0, now: .milliseconds(4_400)), [.zeroAudioLevel(.trigger, source: .outbound)],
                       "two seconds after unmuting")
    }

    func testLowOutputVolumeTriggersBelowAQuarterAndRecoversAtOrAbove() {
        var d = CallQualityEventDetector()
        XCTAssertEqual(d.observeOutputVolume(nil), [], "no volume, no claim")
        XCTAssertEqual(d.observeOutputVolume(0.25), [])
        XCTAssertEqual(d.observeOutputVolume(0.24), [.lowOSOutputVolumeLevel(.trigger)])
        XCTAssertEqual(d.observeOutputVolume(0.1), [])
        XCTAssertEqual(d.observeOutputVolume(0.25), [.lowOSOutputVolumeLevel(.recover)])
        XCTAssertEqual(d.observeOutputVolume(0), [.lowOSOutputVolumeLevel(.trigger)])
        XCTAssertEqual(d.observeOutputVolume(nil), [.lowOSOutputVolumeLevel(.recover)], "the device went away")
    }

    func testThresholdsAreConfigurable() {
        var d = CallQualityEventDetector(configuration: CallQualityEventConfiguration(rttThresholdMs: 100, jitterThresholdMs: 5, badSamples: 1, sampleWindow: 1))
        XCTAssertEqual(d.addNetworkSample(rttMs: 150, jitterMs: 6, lossFraction: 0),
                       [.highRemoteInboundRtt(.trigger, mediaStream: .audio), .highInboundJitter(.trigger, mediaStream: .audio)])
    }

    func testEachEventCarriesWhatSinchsTableSays() {
        XCTAssertEqual(Event.highInboundJitter(.trigger, mediaStream: .audio).eventType, .trigger)
        XCTAssertEqual(Event.zeroAudioLevel(.recover, source: .outbound).eventType, .recover)
        XCTAssertEqual(Event.missingMediaStream(.trigger).eventType, .trigger)
    }
}
