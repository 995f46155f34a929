import VoiceEmbedded
import CMallocCounter
import Foundation
import VoiceSupport
import XCTest
@testable import VoiceMedia
import VoiceTestKit
import VoiceTestAudio
import VoiceMediaTypes

/// The real-time media path allocates nothing per packet in steady state: every heap allocation
/// made on the media engine's threads is counted (the test executable wraps glibc's allocator).
/// Plain RTP is used because Debian's libsrtp2 is built on NSS, whose crypto contexts are
/// allocated inside libsrtp on every protect/unprotect; that is libsrtp's, not this package's.
final class MediaPathAllocationTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(voice_malloc_counter_is_counting() == 1, "a sanitizer build counts no allocations")
    }

    func testEngineThreadsAllocateNothingInSteadyState() throws {
        let engine = MediaEngine(workerCount: 2) { voice_malloc_counter_track_current_thread(1) }
        let signal = TestSignals.speechLike(seconds: 2)
        // Long RTCP interval: reports (every few seconds, not per packet) build small arrays.
        let call = try LoopbackCall(
            encrypted: false, signalA: signal, signalB: signal, loop: true, record: false,
            impairmentAToB: NetworkImpairment(lossRate: 0.05, jitter: .milliseconds(20), seed: 7),
            impairmentBToA: NetworkImpairment(lossRate: 0.05, jitter: .milliseconds(20), seed: 8),
            engine: engine, rtcpInterval: .seconds(3_600))
        try call.start()
        Thread.sleep(forTimeInterval: 1.0)
        let before = voice_malloc_counter_tracked_count()
        let packetsBefore = call.b.stats.packetsReceived + call.a.stats.packetsReceived
        // At least 2 s of media (some 190 packets), longer if a loaded machine sent fewer.
        Thread.sleep(forTimeInterval: 2.0)
        let flowed = PollingWait.until(timeout: 20) { call.b.stats.packetsReceived + call.a.stats.packetsReceived - packetsBefore > 150 }
        let after = voice_malloc_counter_tracked_count()
        let packetsAfter = call.b.stats.packetsReceived + call.a.stats.packetsReceived
        call.stop()
        XCTAssertTrue(flowed, "media flowed through loss, jitter and the jitter buffer: \(packetsAfter - packetsBefore) packets")
        XCTAssertEqual(after - before, 0, "heap allocations on media threads in steady state")
    }

    func testCounterSeesAllocationsOnTrackedThreads() {
        // The instrument itself must be able to fail the test above.
        voice_malloc_counter_track_current_thread(1)
        let before = voice_malloc_counter_tracked_count()
        let array = [Int](repeating: 1, count: Int.random(in: 100...200))
        let after = voice_malloc_counter_tracked_count()
        voice_malloc_counter_track_current_thread(0)
        XCTAssertGreaterThan(array.count, 0)
        XCTAssertGreaterThan(after, before)
    }
}
