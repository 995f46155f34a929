import VoiceTestKit
import XCTest
@testable import VoiceMedia
import VoiceTestAudio
import VoiceMediaTypes
import VoiceSupport

final class OpusDecoderTests: XCTestCase {
    private func decode(_ decoder: VoiceMedia.OpusDecoder, _ packet: [UInt8]) throws -> [Int16] {
        var pcm = [Int16](repeating: 0, count: decoder.maxFrameSize * decoder.channels)
        let n = try packet.withUnsafeBytes { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
        return Array(pcm[0..<(n * decoder.channels)])
    }

    func testRoundTripOfMultiToneKeepsTheSignal() throws {
        let encoder = try VoiceMedia.OpusEncoder()
        try encoder.setBitrate(32_000)
        let decoder = try VoiceMedia.OpusDecoder()
        let tones: [Double] = [300, 700, 1_100, 2_300]
        let signal = CodecTestSignal.multiTone(tones, rate: 48_000, count: 48_000)
        let packets = try OpusEncoderTests.encodeAll(encoder, signal, frameSize: 960)
        var output: [Int16] = []
        for p in packets { output += try decode(decoder, p) }
        XCTAssertEqual(output.count, signal.count)
        let delay = try encoder.lookahead
        // Compare the second half, aligned for the codec delay.
        let ref = signal[24_000..<(48_000 - delay)]
        let out = output[(24_000 + delay)..<48_000]
        let correlation = CodecTestSignal.correlation(ref, out)
        XCTAssertGreaterThan(correlation, 0.9)
        XCTAssertGreaterThan(CodecTestSignal.snr(reference: ref, out), 8)
        for f in tones {
            let level = CodecTestSignal.amplitude(of: f, in: output[24_000..<48_000], rate: 48_000)
            XCTAssertEqual(level, 4_000, accuracy: 4_000 * 0.25, "\(f) Hz")
        }
        // A frequency that was not in the input stays absent.
        XCTAssertLessThan(CodecTestSignal.amplitude(of: 1_700, in: output[24_000..<48_000], rate: 48_000), 200)
        // Misaligned by a millisecond, the same comparison falls apart: the alignment is real.
        let misaligned = output[(24_000 + delay + 48)..<48_000]
        XCTAssertLessThan(CodecTestSignal.snr(reference: signal[24_000..<(48_000 - delay - 48)], misaligned), 3)
        XCTAssertEqual(try decoder.finalRange, try encoder.finalRange, "bit-exact decode of the last packet")
    }

    func testStereoRoundTrip() throws {
        let encoder = try VoiceMedia.OpusEncoder(channels: 2, application: .audio)
        try encoder.setBitrate(96_000)
        let decoder = try VoiceMedia.OpusDecoder(channels: 2)
        let left = CodecTestSignal.tone(500, rate: 48_000, count: 24_000, amplitude: 8_000)
        let right = CodecTestSignal.tone(1_500, rate: 48_000, count: 24_000, amplitude: 8_000)
        var interleaved: [Int16] = []
        for (l, r) in zip(left, right) { interleaved += [l, r] }
        var output: [Int16] = []
        for p in try OpusEncoderTests.encodeAll(encoder, interleaved, frameSize: 960) { output += try decode(decoder, p) }
        let outLeft = stride(from: 0, to: output.count, by: 2).map { output[$0] }
        let outRight = stride(from: 1, to: output.count, by: 2).map { output[$0] }
        XCTAssertGreaterThan(CodecTestSignal.amplitude(of: 500, in: outLeft[12_000...], rate: 48_000), 6_000)
        XCTAssertLessThan(CodecTestSignal.amplitude(of: 1_500, in: outLeft[12_000...], rate: 48_000), 800)
        XCTAssertGreaterThan(CodecTestSignal.amplitude(of: 1_500, in: outRight[12_000...], rate: 48_000), 6_000)
    }

    /// Durations from RFC 6716 §3.1 Table 2 (config → frame size) and §3.2 (frame count codes).
    func testSampleCountFollowsRFC6716TOC() throws {
        // Frame size in 1/10 ms for each of the 32 configurations.
        let frameTenthsMs: [Int] = [
            100, 200, 400, 600, 100, 200, 400, 600, 100, 200, 400, 600,
            100, 200, 100, 200, 25, 50, 100, 200, 25, 50, 100, 200,
            25, 50, 100, 200, 25, 50, 100, 200,
        ]
        for config in 0..<32 {
            let frame = 48 * frameTenthsMs[config] / 10
            let toc = UInt8(config << 3)
            // code 0: one frame; stereo flag does not change the duration.
            for (bytes, frames) in [
                ([toc, 0xAA], 1), ([toc | 0x04, 0xAA], 1),
                ([toc | 0x01, 0xAA, 0xBB], 2), ([toc | 0x02, 0x01, 0xAA, 0xBB], 2),
                ([toc | 0x03, 0x03, 0, 0, 0], 3),
            ] as [([UInt8], Int)] {
                guard frame * frames <= 5_760 else { continue }
                XCTAssertEqual(
                    try bytes.withUnsafeBytes { try VoiceMedia.OpusDecoder.sampleCount(of: $0, sampleRate: 48_000) },
                    frame * frames, "config \(config), \(bytes)")
            }
        }
        // The same packet counted at 8 kHz: 20 ms = 160 samples.
        XCTAssertEqual(try [UInt8(0xF8), 0].withUnsafeBytes { try VoiceMedia.OpusDecoder.sampleCount(of: $0, sampleRate: 8_000) }, 160)
    }

    func testMalformedPacketsThrowTypedErrorsNotCrashes() throws {
        let decoder = try VoiceMedia.OpusDecoder()
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("code 3 with zero frames", [0x03, 0x00]),
            ("code 3 lasting 49 × 20 ms > 120 ms", [0xFB, 49]),
            ("code 3 truncated before the count byte", [0x03]),
            ("code 1 with an odd payload (two equal frames impossible)", [0x01, 0xAA, 0xBB, 0xCC]),
            ("code 2 first-frame length that lies", [0x02, 10, 1, 2]),
            ("code 2 truncated length", [0x02]),
            ("code 3 CBR with padding flag and lying padding length", [0x03, 0x42, 0xFF, 0xFF]),
            ("code 3 VBR whose frame lengths exceed the packet", [0x03, 0x82, 200, 1]),
        ]
        for (name, bytes) in cases {
            XCTAssertThrowsError(try decode(decoder, bytes), name) { XCTAssertEqual($0 as? OpusError, .invalidPacket, name) }
        }
        // The TOC-only parse behind sampleCount rejects what it can see: no frames, too long, no count byte.
        for bytes: [UInt8] in [[], [0x03], [0x03, 0x00], [0xFB, 49]] {
            XCTAssertThrowsError(
                try bytes.withUnsafeBytes { try VoiceMedia.OpusDecoder.sampleCount(of: $0, sampleRate: 48_000) }, "\(bytes)"
            ) {
                XCTAssertEqual($0 as? OpusError, .invalidPacket)
            }
        }
        XCTAssertThrowsError(try [UInt8(0xF8)].withUnsafeBytes { try VoiceMedia.OpusDecoder.sampleCount(of: $0, sampleRate: 44_100) }) {
            XCTAssertEqual($0 as? OpusError, .badArgument)
        }
        // Random bytes either decode (Opus accepts most byte strings) or throw; they never trap.
        var rng = SplitMix64(seed: 112)  // seeded: a failure replays
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 1...60, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            do { _ = try decode(decoder, bytes) } catch { XCTAssertTrue(error is OpusError) }
        }
    }

    func testOutputBufferShorterThanThePacketThrowsBufferTooSmall() throws {
        let encoder = try VoiceMedia.OpusEncoder()
        let decoder = try VoiceMedia.OpusDecoder()
        let packet = try OpusEncoderTests.encodeAll(encoder, CodecTestSignal.tone(440, rate: 48_000, count: 960), frameSize: 960)[0]
        var pcm = [Int16](repeating: 0, count: 480)
        XCTAssertThrowsError(try packet.withUnsafeBytes { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } })
        {
            XCTAssertEqual($0 as? OpusError, .bufferTooSmall)
        }
        XCTAssertThrowsError(try pcm.withUnsafeMutableBufferPointer { try decoder.decodeMissing(frames: 960, into: $0) }) {
            XCTAssertEqual($0 as? OpusError, .bufferTooSmall)
        }
        XCTAssertThrowsError(
            try pcm.withUnsafeMutableBufferPointer { try decoder.decodeMissing(frames: 100, into: $0) }, "not a multiple of 2.5 ms"
        ) {
            XCTAssertEqual($0 as? OpusError, .badArgument)
        }
    }

    func testPacketLossConcealmentFillsTheRequestedDuration() throws {
        let encoder = try VoiceMedia.OpusEncoder()
        let decoder = try VoiceMedia.OpusDecoder()
        let signal = CodecTestSignal.tone(440, rate: 48_000, count: 9_600)
        for p in try OpusEncoderTests.encodeAll(encoder, signal, frameSize: 960) { _ = try decode(decoder, p) }
        var pcm = [Int16](repeating: 0, count: 960)
        XCTAssertEqual(try pcm.withUnsafeMutableBufferPointer { try decoder.decodeMissing(frames: 960, into: $0) }, 960)
        // Concealment continues the tone rather than going silent.
        XCTAssertGreaterThan(CodecTestSignal.rms(pcm[...]), 2_000)
        XCTAssertEqual(try decoder.lastPacketDuration, 960)
    }

    /// Drop packet N; recovering it from packet N+1's FEC data must beat plain concealment.
    func testFECFromNextPacketBeatsPLC() throws {
        let encoder = try VoiceMedia.OpusEncoder()
        try encoder.setBitrate(32_000)
        try encoder.setSignal(.voice)
        try encoder.setInbandFEC(true)
        try encoder.setPacketLossPercent(20)
        let signal = CodecTestSignal.voiceLike(count: 48_000 * 3)
        let packets = try OpusEncoderTests.encodeAll(encoder, signal, frameSize: 960)
        let delay = try encoder.lookahead

        let fecDecoder = try VoiceMedia.OpusDecoder()
        let plcDecoder = try VoiceMedia.OpusDecoder()
        var fecOut: [Int16] = [], plcOut: [Int16] = []
        let lost = Set(stride(from: 20, to: packets.count - 1, by: 7))
        var frame = [Int16](repeating: 0, count: 960)
        for (i, packet) in packets.enumerated() {
            if lost.contains(i) {
                let next = packets[i + 1]
                let n = try next.withUnsafeBytes { p in
                    try frame.withUnsafeMutableBufferPointer { try fecDecoder.decodeFEC(from: p, frames: 960, into: $0) }
                }
                XCTAssertEqual(n, 960)
                fecOut += frame
                _ = try frame.withUnsafeMutableBufferPointer { try plcDecoder.decodeMissing(frames: 960, into: $0) }
                plcOut += frame
            } else {
                fecOut += try decode(fecDecoder, packet)
                plcOut += try decode(plcDecoder, packet)
            }
        }
        var fecError = 0.0, plcError = 0.0, energy = 0.0
        for i in lost {
            let range = (i * 960)..<((i + 1) * 960)
            let ref = signal[(range.lowerBound - delay)..<(range.upperBound - delay)]
            fecError += CodecTestSignal.errorEnergy(ref, fecOut[range])
            plcError += CodecTestSignal.errorEnergy(ref, plcOut[range])
            energy += CodecTestSignal.errorEnergy(ref, ArraySlice(repeating: 0, count: 960))
        }
        let fecSNR = 10 * log10(energy / fecError), plcSNR = 10 * log10(energy / plcError)
        print("lost frames: FEC SNR \(fecSNR) dB, PLC SNR \(plcSNR) dB")
        XCTAssertGreaterThan(fecSNR, plcSNR + 3, "FEC must recover the lost frames clearly better than concealment")
    }

    func testGainSetterRoundTripsAndScalesOutput() throws {
        let decoder = try VoiceMedia.OpusDecoder()
        try decoder.setGain(q8dB: -1_536)
        XCTAssertEqual(try decoder.gainQ8dB, -1_536)
        XCTAssertThrowsError(try decoder.setGain(q8dB: 40_000)) { XCTAssertEqual($0 as? OpusError, .badArgument) }

        let encoder = try VoiceMedia.OpusEncoder()
        let packets = try OpusEncoderTests.encodeAll(encoder, CodecTestSignal.tone(440, rate: 48_000, count: 19_200), frameSize: 960)
        let plain = try VoiceMedia.OpusDecoder()
        var quiet: [Int16] = [], loud: [Int16] = []
        for p in packets {
            quiet += try decode(decoder, p)
            loud += try decode(plain, p)
        }
        let ratio = CodecTestSignal.rms(quiet[9_600...]) / CodecTestSignal.rms(loud[9_600...])
        XCTAssertEqual(20 * log10(ratio), -6, accuracy: 0.5)
    }

    func testResetForgetsHistory() throws {
        let decoder = try VoiceMedia.OpusDecoder()
        let encoder = try VoiceMedia.OpusEncoder()
        for p in try OpusEncoderTests.encodeAll(encoder, CodecTestSignal.tone(440, rate: 48_000, count: 9_600), frameSize: 960) {
            _ = try decode(decoder, p)
        }
        try decoder.reset()
        try encoder.reset()
        var pcm = [Int16](repeating: 0, count: 960)
        _ = try pcm.withUnsafeMutableBufferPointer { try decoder.decodeMissing(frames: 960, into: $0) }
        XCTAssertEqual(CodecTestSignal.rms(pcm[...]), 0, "nothing to conceal from after a reset")
    }
}
