import VoiceEmbedded
import Foundation
import VoiceRTP
import VoiceSupport
import XCTest
import VoiceTestKit

@testable import VoiceMedia
import VoiceTestAudio
import VoiceMediaTypes

/// Calls under attack from an off-path sender who knows the RTP port (from the SDP) but not the
/// source or the keys: forged RTP from another SSRC and forged RTCP reports. In virtual time:
/// the call and the forger on an embedded engine's in-memory network.
final class AudioStreamForgedMediaTests: XCTestCase {
    let tones = TestSignals.multiTone([(440, 5_000), (1_250, 3_000), (3_100, 2_000)], seconds: 3)

    /// Sends, each time it is asked, one Opus packet of silence from `ssrc` (in sequence, as a
    /// real sender would) to `target`, and every other time an RTCP receiver report claiming to
    /// come from `claimedSSRC` about `reportedSSRC` with an LSR 26 s old.
    private struct Forger {
        let transport: any MediaTransport
        let target: SocketAddress
        let ssrc: UInt32, claimedSSRC: UInt32, reportedSSRC: UInt32
        let payload: [UInt8]
        var seq: UInt16 = 30_000
        var ts: UInt32 = 7_000_000
        var sent = 0

        init(on network: InMemoryMediaNetwork, target: SocketAddress, ssrc: UInt32, claimedSSRC: UInt32, reportedSSRC: UInt32) throws {
            transport = try network.bind(SocketAddress(host: "10.0.0.66", port: 0))
            (self.target, self.ssrc, self.claimedSSRC, self.reportedSSRC) = (target, ssrc, claimedSSRC, reportedSSRC)
            let encoder = try OpusEncoder()
            var silence = [UInt8](repeating: 0, count: 400)
            let count = try [Int16](repeating: 0, count: 960).withUnsafeBufferPointer { pcm in
                try silence.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) }
            }
            payload = Array(silence[0..<count])
        }

        mutating func sendOne() throws {
            let header = RTPHeader(payloadType: 111, sequenceNumber: seq, timestamp: ts, ssrc: ssrc)
            let packet = try RTPPacket(header: header, payload: payload).serialized()
            _ = packet.withUnsafeBytes { transport.send($0, to: target) }
            if sent % 2 == 0 {
                let stale = NTPTimestamp(unixSeconds: Date().timeIntervalSince1970 - 26).compact
                let report = RTCPCompoundPacket(
                    report: .receiverReport(RTCPReceiverReport(
                        ssrc: claimedSSRC, reportBlocks: [RTCPReportBlock(ssrc: reportedSSRC, lastSR: stale)])),
                    sourceDescription: RTCPSourceDescription(ssrc: claimedSSRC, cname: "forger"))
                let bytes = try report.serialized()
                _ = bytes.withUnsafeBytes { transport.send($0, to: target) }
            }
            seq &+= 1
            ts &+= 960
            sent += 1
        }
    }

    /// Runs the call for `milliseconds`, the forger sending 100 packets a second meanwhile.
    private func run(_ call: LoopbackCall, forging forger: inout Forger, milliseconds: Int) throws {
        for _ in 0..<(milliseconds / 10) {
            try forger.sendOne()
            call.advance(by: .milliseconds(10))
        }
    }

    func testForgedPacketsFromAnotherSourceNeitherSilenceNorResetTheCall() throws {
        let call = try LoopbackCall.virtual(encrypted: false, signalA: tones, signalB: tones, rtcpInterval: .milliseconds(300))
        defer { call.stop() }
        try call.start()
        call.advance(by: .milliseconds(300))  // the call is under way when the forgery starts
        let network = try XCTUnwrap(call.engine.network)
        var forger = try Forger(
            on: network, target: call.b.localAddress, ssrc: 0xBAD0_0BAD, claimedSSRC: 0xBAD0_0BAD,
            reportedSSRC: call.b.configuration.ssrc)
        try run(call, forging: &forger, milliseconds: 3_000)
        call.stop()
        let atB = SpectralSimilarity(played: tones, in: call.deviceB.recordedSamples)
        let b = call.b.stats
        XCTAssertGreaterThan(atB.score, 0.8, "the call's audio plays through the forgery: \(atB)")
        XCTAssertEqual(b.remoteSSRC, call.a.configuration.ssrc)
        XCTAssertEqual(b.jitterBuffer.ssrcChanges, 0, "never reset by foreign packets")
        XCTAssertGreaterThan(b.foreignSourcePackets, 250, "the forgery is counted (300 sent)")
        // Taken into the jitter estimate, the forger's packets (their timestamps a random distance
        // from the real source's) would put it in seconds; the real stream's is near 0 here.
        XCTAssertLessThan(b.jitterMs, 10, "the forgery is not in the jitter estimate")
        XCTAssertLessThan(b.rttMs ?? 0, 100, "a report that names no SR of ours sets no RTT")
    }

    /// The same with RTCP claiming to come from the real peer's SSRC (known to an attacker who
    /// sees its packets): the LSR check alone keeps the RTT true.
    func testAReportWhoseLSRNamesNoSRWeSentSetsNoRoundTrip() throws {
        let call = try LoopbackCall.virtual(encrypted: false, signalA: tones, signalB: tones, rtcpInterval: .milliseconds(300))
        defer { call.stop() }
        try call.start()
        call.advance(by: .milliseconds(300))
        let network = try XCTUnwrap(call.engine.network)
        var forger = try Forger(
            on: network, target: call.b.localAddress, ssrc: 0xBAD0_0BAD, claimedSSRC: call.a.configuration.ssrc,
            reportedSSRC: call.b.configuration.ssrc)
        // Every stats snapshot along the way, not just the last: 3 s, 50 ms apart.
        var largest = 0.0
        for _ in 0..<60 {
            try run(call, forging: &forger, milliseconds: 50)
            largest = max(largest, call.b.stats.rttMs ?? 0)
        }
        let rtt = try XCTUnwrap(call.b.stats.rttMs, "the real reports still give an RTT")
        XCTAssertLessThan(rtt, 100)
        XCTAssertLessThan(largest, 100, "no forged report ever set the RTT")
    }
}
