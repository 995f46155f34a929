import VoiceEmbedded
import Foundation
import XCTest
@testable import VoiceMedia
import VoiceTestKit
import VoiceTestAudio
import VoiceMediaTypes
import VoiceSupport

/// Time-scale modification in a real stream: Opus over SRTP on loopback, in real time.
final class AudioStreamTimeStretchTests: XCTestCase {
    func testExcessDelayIsShedByAcceleratingTheVoiceWithoutDroppingAFrameOrAClick() throws {
        // A 150 Hz voiced tone (three harmonics) for 6 s into a receiver that starts with 200 ms
        // of delay. Once the first second has shown the link clean, the target falls to ~20 ms
        // and the excess goes by playing packets a pitch period shorter.
        let tone = TestSignals.multiTone([(150, 6_000), (300, 3_000), (450, 2_000)], seconds: 6)
        let call = try LoopbackCall.virtual(codec: .opus(.voice), signalA: tone, signalB: []) { c in
            c.jitterBuffer.initialDelay = .milliseconds(200)
        }
        try call.start()
        PollingWait.sleep(6.5)
        let stats = call.b.stats
        call.stop()
        let jb = stats.jitterBuffer
        XCTAssertGreaterThan(jb.acceleratedFrames, 10, "\(jb)")
        XCTAssertGreaterThan(stats.timeStretchRemovedSamples, 48 * 100, "at least 100 ms taken out")
        XCTAssertLessThan(jb.playoutDelay, jb.targetDelay + .milliseconds(35), "\(jb)")
        XCTAssertEqual(jb.removedFrames + jb.insertedFrames + jb.discarded + jb.concealedFrames, 0, "no frame dropped or inserted: \(jb)")

        // The tone comes out whole: in every 100 ms window while it plays, the fundamental is
        // there and a frequency between the harmonics (a click spreads energy over all of them)
        // stays near the codec's noise floor.
        let output = call.deviceB.recordedSamples
        guard let first = output.firstIndex(where: { abs(Int($0)) > 1_000 }) else { return XCTFail("nothing played") }
        var windows = 0
        var start = first + 4_800
        while start + 4_800 <= min(output.count, first + 5 * 48_000) {
            let window = output[start..<(start + 4_800)]
            let fundamental = ToneAmplitude.of(150, in: window)
            let between = ToneAmplitude.of(1_025, in: window)
            XCTAssertGreaterThan(fundamental, 3_000, "window at \(start - first) samples")
            XCTAssertLessThan(between, 0.03 * fundamental, "window at \(start - first) samples")
            windows += 1
            start += 4_800
        }
        XCTAssertGreaterThan(windows, 30)
    }
}
