import Foundation
import Synchronization
import VoiceRTP
import VoiceSupport
import XCTest
import VoiceTestKit

@testable import VoiceMedia
import VoiceSignals
import VoiceMediaTypes

/// Calls under attack from an off-path sender who knows the RTP port (from the SDP) but not the
/// source or the keys: forged RTP from other SSRCs, forged RTCP reports, a flood of junk.
final class AudioStreamHostileMediaTests: XCTestCase {
    let tones = TestSignals.multiTone([(440, 5_000), (1_250, 3_000), (3_100, 2_000)], seconds: 3)

    /// Sends until stopped: `packetsPerSecond` Opus packets of silence from `ssrc` (in sequence,
    /// as a real sender would) to `target`, plus RTCP receiver reports claiming to come from
    /// `claimedSSRC` about `reportedSSRC` with an LSR 26 s old.
    private final class Forger: Sendable {
        let stopped = Atomic<Bool>(false)

        init(target: SocketAddress, ssrc: UInt32, claimedSSRC: UInt32, reportedSSRC: UInt32, packetsPerSecond: Int) throws {
            let socket = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
            let encoder = try OpusEncoder()
            var silence = [UInt8](repeating: 0, count: 400)
            let count = try [Int16](repeating: 0, count: 960).withUnsafeBufferPointer { pcm in
                try silence.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) }
            }
            let payload = Array(silence[0..<count])
            let thread = Thread { [self] in
                var seq: UInt16 = 30_000
                var ts: UInt32 = 7_000_000
                var n = 0
                while !self.stopped.load(ordering: .relaxed) {
                    let header = RTPHeader(payloadType: 111, sequenceNumber: seq, timestamp: ts, ssrc: ssrc)
                    if let bytes = try? RTPPacket(header: header, payload: payload).serialized() {
                        _ = bytes.withUnsafeBytes { socket.send($0, to: target) }
                    }
                    if n % 2 == 0 {
                        let stale = NTPTimestamp(unixSeconds: Date().timeIntervalSince1970 - 26).compact
                        let report = RTCPCompoundPacket(
                            report: .receiverReport(RTCPReceiverReport(
                                ssrc: claimedSSRC, reportBlocks: [RTCPReportBlock(ssrc: reportedSSRC, lastSR: stale)])),
                            sourceDescription: RTCPSourceDescription(ssrc: claimedSSRC, cname: "forger"))
                        if let bytes = try? report.serialized() { _ = bytes.withUnsafeBytes { socket.send($0, to: target) } }
                    }
                    seq &+= 1
                    ts &+= 960
                    n += 1
                    Thread.sleep(forTimeInterval: 1 / Double(packetsPerSecond))
                }
            }
            thread.start()
        }

        func stop() { stopped.store(true, ordering: .relaxed) }
    }

    func testForgedPacketsFromAnotherSourceNeitherSilenceNorResetTheCall() throws {
        let call = try LoopbackCall(encrypted: false, signalA: tones, signalB: tones, rtcpInterval: .milliseconds(300))
        try call.start()
        Thread.sleep(forTimeInterval: 0.3)  // the call is under way when the forgery starts
        let forger = try Forger(
            target: call.b.localAddress, ssrc: 0xBAD0_0BAD, claimedSSRC: 0xBAD0_0BAD,
            reportedSSRC: call.b.configuration.ssrc, packetsPerSecond: 100)
        Thread.sleep(forTimeInterval: 3.0)
        _ = PollingWait.until(timeout: 20, every: 0.02) { call.b.stats.foreignSourcePackets > 100 }
        forger.stop()
        call.stop()
        let atB = SpectralSimilarity(played: tones, in: call.deviceB.recordedSamples)
        let b = call.b.stats
        XCTAssertGreaterThan(atB.score, 0.75, "the call's audio plays through the forgery: \(atB)")
        XCTAssertEqual(b.remoteSSRC, call.a.configuration.ssrc)
        XCTAssertEqual(b.jitterBuffer.ssrcChanges, 0, "never reset by foreign packets")
        XCTAssertGreaterThan(b.foreignSourcePackets, 100, "the forgery is counted")
        // Taken into the jitter estimate, the forger's packets (their timestamps a random distance
        // from the real source's) would put it in seconds. The real stream's is near 0 on loopback;
        // a sender stalled by a loaded machine raises it by about a sixteenth of the stall (RFC
        // 3550's filter), some 13 ms for 200 ms.
        XCTAssertLessThan(b.jitterMs, 100, "the forgery is not in the jitter estimate")
        XCTAssertLessThan(b.rttMs ?? 0, 100, "a report that names no SR of ours sets no RTT")
    }

    /// The same with RTCP claiming to come from the real peer's SSRC (known to an attacker who
    /// sees its packets): the LSR check alone keeps the RTT true.
    func testAReportWhoseLSRNamesNoSRWeSentSetsNoRoundTrip() throws {
        let call = try LoopbackCall(encrypted: false, signalA: tones, signalB: tones, rtcpInterval: .milliseconds(300))
        try call.start()
        Thread.sleep(forTimeInterval: 0.3)  // the call is under way when the forgery starts
        let forger = try Forger(
            target: call.b.localAddress, ssrc: 0xBAD0_0BAD, claimedSSRC: call.a.configuration.ssrc,
            reportedSSRC: call.b.configuration.ssrc, packetsPerSecond: 100)
        var largest = 0.0
        var snapshots = 0
        // Every stats snapshot along the way, not just the last: for 1.5 s, and on until the real
        // reports have given an RTT (a loaded machine may take longer for the first exchange).
        while snapshots < 30 || call.b.stats.rttMs == nil && snapshots < 400 {
            Thread.sleep(forTimeInterval: 0.05)
            largest = max(largest, call.b.stats.rttMs ?? 0)
            snapshots += 1
        }
        let rtt = try XCTUnwrap(call.b.stats.rttMs, "the real reports still give an RTT")
        call.stop()
        forger.stop()
        XCTAssertLessThan(rtt, 100)
        XCTAssertLessThan(largest, 100, "no forged report ever set the RTT")
    }

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
