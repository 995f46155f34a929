import VoiceEmbedded
import Foundation
import Synchronization
import VoiceRTP
import VoiceSupport
import XCTest
import VoiceTestKit

@testable import VoiceMedia
import VoiceTestAudio
import VoiceMediaTypes

/// A call under a flood of junk at its RTP port, on real sockets: the engine must drain the
/// kernel's queue faster than a fixed budget would. Forged RTP and RTCP are in
/// ``AudioStreamForgedMediaTests``, in virtual time.
final class AudioStreamHostileMediaTests: XCTestCase {
    let tones = TestSignals.multiTone([(440, 5_000), (1_250, 3_000), (3_100, 2_000)], seconds: 3)

    /// 20,000 junk datagrams a second at the RTP port of an SRTP call, three times what a fixed
    /// read budget of 32 datagrams per 5 ms tick could read: the engine reads them all (they fail
    /// authentication and are counted), and the call's audio is untouched.
    func testAJunkFloodAtTheMediaPortCostsCPUNotAudio() throws {
        let call = try LoopbackCall(signalA: tones, signalB: tones)
        try call.start()
        let target = call.b.localAddress
        let stop = Atomic<Bool>(false)
        let sent = Atomic<Int>(0)
        let flooder = Thread {
            guard let socket = try? UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0)) else { return }
            var junk = [UInt8](repeating: 0, count: 160)
            junk[0] = 0x80  // version 2, so it is taken for RTP and has to fail SRTP authentication
            junk[1] = 111
            var rng = SplitMix64(seed: 120)
            var start = Date()
            var count = 0, paced = 0
            while !stop.load(ordering: .relaxed) {
                for i in 2..<12 { junk[i] = UInt8.random(in: 0...255, using: &rng) }
                _ = junk.withUnsafeBytes { socket.send($0, to: target) }
                count += 1
                paced += 1
                let due = Date(timeInterval: Double(paced) / 20_000, since: start)
                if paced % 50 == 0 {
                    if due > Date() {
                        Thread.sleep(until: due)
                    } else if Date().timeIntervalSince(due) > 0.01 {
                        // Held up (a loaded machine): carry on at the rate, not in a burst to catch up.
                        start = Date()
                        paced = 0
                    }
                }
                sent.store(count, ordering: .relaxed)
            }
        }
        flooder.start()
        Thread.sleep(forTimeInterval: 3.2)
        _ = PollingWait.until(timeout: 20, every: 0.02) { sent.load(ordering: .relaxed) > 40_000 }
        let junkSent = sent.load(ordering: .relaxed)
        call.stop()
        stop.store(true, ordering: .relaxed)
        let atB = SpectralSimilarity(played: tones, in: call.deviceB.recordedSamples)
        let b = call.b.stats
        XCTAssertGreaterThan(atB.score, 0.8, "audio under the flood: \(atB)")
        // Most of the junk sent was read: a fixed budget (32 a tick, 6,400 a second) would have read
        // under a third of it; the count, not the rate, since a loaded machine sends and reads less.
        XCTAssertGreaterThan(junkSent, 40_000, "the flood ran")
        XCTAssertGreaterThan(Int(b.srtpAuthFailures) * 3, junkSent * 2, "the junk was read and rejected, not left queued (of \(junkSent))")
        XCTAssertLessThan(b.jitterBuffer.late + b.jitterBuffer.discarded, 10, "real packets were not held up behind it")
        XCTAssertLessThan(b.packetsLost, 5, "nor dropped by a full socket queue")
        print("junk flood: \(sent.load(ordering: .relaxed)) datagrams sent, \(b.srtpAuthFailures) read and rejected, \(b.packetsLost) real lost")
    }
}
