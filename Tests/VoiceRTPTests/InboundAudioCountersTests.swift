import VoiceSupport
import XCTest

@testable import VoiceRTP

/// The received track's counters under W3C webrtc-stats names: each agrees with what was
/// played and with the jitter buffer's own counts.
final class InboundAudioCountersTests: XCTestCase {
    func testConcealmentPlayedSamplesWaitAndEnergyAgreeWithWhatWasPlayed() {
        // Whole frames only, so the played samples split into the frames the counters saw.
        var pair = RTPStreamPair(protectionKeys: nil) { $0.jitterBuffer.timeStretch = false }
        pair.run(.seconds(2))
        let before = pair.b.stream.statistics(at: pair.now)
        pair.b.output.played.removeAll()
        var index = 0
        pair.dropsOnWire = { bytes in
            guard let packet = try? RTPPacket(parsing: bytes), packet.header.ssrc == 0xA else { return false }
            index += 1
            // Single losses, and one run of three.
            return index % 25 == 7 || (200...202).contains(index)
        }
        pair.run(.seconds(6))
        let after = pair.b.stream.statistics(at: pair.now)
        let (a, b) = (after.inbound, before.inbound)
        let buffer = (after.jitterBuffer, before.jitterBuffer)

        XCTAssertEqual(pair.lostOnWire, 12 + 3)
        XCTAssertEqual(Int(a.totalSamplesReceived - b.totalSamplesReceived), pair.b.output.played.count, "every played sample")
        XCTAssertEqual(a.totalSamplesDuration - b.totalSamplesDuration, Double(pair.b.output.played.count) / 48_000, accuracy: 1e-9)
        let concealedFrames = (buffer.0.concealedFrames + buffer.0.underrunFrames) - (buffer.1.concealedFrames + buffer.1.underrunFrames)
        let fec = buffer.0.recoveredFrames - buffer.1.recoveredFrames
        XCTAssertEqual(concealedFrames + fec, 15, "each lost frame concealed or rebuilt")
        XCTAssertEqual(Int(a.concealedSamples - b.concealedSamples), (concealedFrames + fec) * 960, "G.711 has no FEC: all concealed")
        XCTAssertEqual(a.concealmentEvents - b.concealmentEvents, 13, "twelve single losses and one run of three")
        XCTAssertLessThanOrEqual(a.silentConcealedSamples, a.concealedSamples)

        // The wait: each frame from its packet's arrival to its playout, at the RTP clock.
        let units = buffer.0.emittedUnits - buffer.1.emittedUnits
        XCTAssertEqual(units, (buffer.0.playedPackets - buffer.1.playedPackets) * 160)
        let meanWait = (buffer.0.emittedDelay - buffer.1.emittedDelay) / Double(units)
        XCTAssertGreaterThan(meanWait, 0.010)
        XCTAssertLessThan(abs(meanWait - after.jitterBuffer.currentDelay.milliseconds / 1_000), 0.021, "within a frame of the buffer's delay")

        // Energy: each played frame's peak over full scale, squared, times 20 ms.
        var energy = 0.0
        var start = 0
        let played = pair.b.output.played
        while start + 960 <= played.count {
            let peak = played[start..<(start + 960)].map { Int(abs(Int32($0))) }.max() ?? 0
            let level = Double(min(peak, 32_767)) / 32_767
            energy += level * level * 0.02
            start += 960
        }
        XCTAssertEqual(a.totalAudioEnergy - b.totalAudioEnergy, energy, accuracy: energy * 1e-6)
    }

    func testNothingCountsBeforeTheFirstPacketAndRunsOfConcealmentAreOneEvent() {
        var counters = InboundAudioCounters()
        counters.played(samples: 960, concealed: false, peak: 32_767)
        counters.played(samples: 960, concealed: true, peak: 0)
        counters.played(samples: 960, concealed: true, peak: 100)
        counters.played(samples: 960, concealed: false, peak: 0)
        counters.played(samples: 960, concealed: true, peak: 100)
        counters.played(samples: 0, concealed: true, peak: 100)
        XCTAssertEqual(counters.totalSamplesReceived, 5 * 960)
        XCTAssertEqual(counters.concealedSamples, 3 * 960)
        XCTAssertEqual(counters.silentConcealedSamples, 960)
        XCTAssertEqual(counters.concealmentEvents, 2)
        XCTAssertEqual(counters.totalAudioEnergy, 0.02 + 2 * pow(100.0 / 32_767, 2) * 0.02, accuracy: 1e-12)

        var pair = RTPStreamPair(protectionKeys: nil)
        pair.dropsOnWire = { _ in true }
        pair.run(.seconds(1))
        XCTAssertEqual(pair.b.stream.statistics(at: pair.now).inbound, InboundAudioCounters(), "no packet: nothing played counts")
    }
}
