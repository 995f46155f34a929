import XCTest
@testable import VoiceMedia
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

final class MediaCodecTests: XCTestCase {
    private static let codecs: [MediaCodec] = [.opus(.voice), .g722, .pcmu, .pcma]

    private func encode(_ encoder: any MediaEncoder, _ frame: ArraySlice<Int16>) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: encoder.maxPayloadSize)
        let n = try frame.withUnsafeBufferPointer { p in try out.withUnsafeMutableBytes { try encoder.encode(p, into: $0) } }
        return Array(out[0..<n])
    }

    private func decode(_ decoder: any MediaDecoder, _ payload: [UInt8]) throws -> [Int16] {
        var pcm = [Int16](repeating: 0, count: 5_760)
        let n = try payload.withUnsafeBytes { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
        return Array(pcm[0..<n])
    }

    func testCodecDescriptions() {
        XCTAssertEqual(MediaCodec.opus(.voice).name, "opus")
        XCTAssertEqual(MediaCodec.pcmu.name, "PCMU")
        XCTAssertEqual(MediaCodec.pcma.name, "PCMA")
        XCTAssertEqual(MediaCodec.g722.name, "G722")
        XCTAssertEqual(Self.codecs.map(\.defaultPayloadType), [111, 9, 0, 8])
        // RFC 3551: G.722 samples at 16 kHz but its RTP clock runs at 8 kHz.
        XCTAssertEqual(Self.codecs.map(\.rtpClockRate), [48_000, 8_000, 8_000, 8_000])
        XCTAssertEqual(Self.codecs.map(\.channels), [2, 1, 1, 1])
        XCTAssertEqual(Self.codecs.map(\.description), ["opus/48000/2", "G722/8000", "PCMU/8000", "PCMA/8000"])
        XCTAssertEqual(MediaCodec.pcmu.rtpTimestampIncrement(ptime: 20), 160)
        XCTAssertEqual(MediaCodec.g722.rtpTimestampIncrement(ptime: 20), 160)
        XCTAssertEqual(MediaCodec.opus(.voice).rtpTimestampIncrement(ptime: 20), 960)
        XCTAssertNotEqual(MediaCodec.opus(.voice), MediaCodec.opus(OpusSettings(bitrate: 32_000)))
    }

    func testOpusVoiceDefaults() {
        let s = OpusSettings.voice
        XCTAssertEqual(s.bitrate, 64_000)
        XCTAssertEqual(s.maxAverageBitrate, 80_000)
        XCTAssertEqual(s.packetLossPercent, 3)
        XCTAssertEqual(s.complexity, 5)
        XCTAssertEqual(s.bitrateMode, .vbr)
        XCTAssertTrue(s.fec)
        XCTAssertFalse(s.dtx)
        XCTAssertEqual(s.application, .voip)
    }

    func testSettingsReachTheOpusEncoder() throws {
        let settings = OpusSettings(
            bitrate: 24_000, complexity: 3, bitrateMode: .constrainedVBR, fec: false,
            packetLossPercent: 12, dtx: true, signal: .music, maxBandwidth: .wideband)
        let encoder = try XCTUnwrap(try MediaCodec.opus(settings).makeEncoder(ptime: 20) as? OpusMediaEncoder)
        XCTAssertEqual(try encoder.encoder.bitrate, 24_000)
        XCTAssertEqual(try encoder.encoder.complexity, 3)
        XCTAssertEqual(try encoder.encoder.bitrateMode, .constrainedVBR)
        XCTAssertFalse(try encoder.encoder.inbandFEC)
        XCTAssertEqual(try encoder.encoder.packetLossPercent, 12)
        XCTAssertTrue(try encoder.encoder.dtx)
        XCTAssertEqual(try encoder.encoder.signal, .music)
        XCTAssertEqual(try encoder.encoder.maxBandwidth, .wideband)
        encoder.setFEC(true)
        encoder.setPacketLossPercent(250)
        encoder.setBitrate(40_000)
        XCTAssertTrue(try encoder.encoder.inbandFEC)
        XCTAssertEqual(try encoder.encoder.packetLossPercent, 100, "clamped")
        XCTAssertEqual(try encoder.encoder.bitrate, 40_000)
        XCTAssertEqual(encoder.codec, .opus(settings))
    }

    func testInvalidSettingsAndPtimesThrowTypedErrors() {
        for codec in Self.codecs {
            for ptime in [0, 5, 30, 80, 120] {
                XCTAssertThrowsError(try codec.makeEncoder(ptime: ptime)) {
                    XCTAssertEqual($0 as? MediaCodecError, .unsupportedPtime(ptime))
                }
            }
        }
        XCTAssertThrowsError(try MediaCodec.opus(OpusSettings(complexity: 11)).makeEncoder(ptime: 20)) {
            XCTAssertEqual($0 as? MediaCodecError, .opus(.badArgument))
        }
        XCTAssertThrowsError(try MediaCodec.opus(OpusSettings(packetLossPercent: -3)).makeEncoder(ptime: 20)) {
            XCTAssertEqual($0 as? MediaCodecError, .opus(.badArgument))
        }
        XCTAssertTrue(MediaCodecError.unsupportedPtime(30).description.contains("30"))
    }

    func testEveryCodecAndPtimeRoundTripsAToneAt48kHz() throws {
        for codec in Self.codecs {
            for ptime in MediaCodec.supportedPtimes {
                let encoder = try codec.makeEncoder(ptime: ptime)
                let decoder = try codec.makeDecoder()
                XCTAssertEqual(encoder.ptime, ptime)
                XCTAssertEqual(encoder.samplesPerFrame, 48 * ptime)
                XCTAssertEqual(encoder.rtpTimestampIncrement, codec.rtpTimestampIncrement(ptime: ptime))
                let signal = CodecTestSignal.tone(1_000, rate: 48_000, count: 48_000)
                var output: [Int16] = []
                var start = 0
                while start + encoder.samplesPerFrame <= signal.count {
                    let payload = try encode(encoder, signal[start..<(start + encoder.samplesPerFrame)])
                    if codec != .opus(.voice) { XCTAssertEqual(payload.count, 8 * ptime) }
                    XCTAssertEqual(try payload.withUnsafeBytes { try decoder.duration(of: $0) }, encoder.rtpTimestampIncrement)
                    let pcm = try decode(decoder, payload)
                    XCTAssertEqual(pcm.count, encoder.samplesPerFrame)
                    output += pcm
                    start += encoder.samplesPerFrame
                }
                let steady = output[12_000..<36_000]
                let level = CodecTestSignal.amplitude(of: 1_000, in: steady, rate: 48_000)
                XCTAssertEqual(20 * log10(level / 10_000), 0, accuracy: 1.5, "\(codec) \(ptime) ms")
                XCTAssertLessThan(CodecTestSignal.amplitude(of: 3_000, in: steady, rate: 48_000), 300, "\(codec) \(ptime) ms")
            }
        }
    }

    func testG711KeepsTheTelephoneBandAndRemovesWhatWouldAlias() throws {
        // At G.711's resampler quality: 3.3 kHz (the top of the 300–3400 Hz telephone band)
        // passes at its level, 5 kHz (above the 4 kHz Nyquist limit, it would fold to 3 kHz)
        // comes out at least 40 dB down, both ways through 8 kHz.
        func roundTrip(_ frequency: Double) throws -> ArraySlice<Int16> {
            let encoder = try MediaCodec.pcmu.makeEncoder(ptime: 20)
            let decoder = try MediaCodec.pcmu.makeDecoder()
            let signal = CodecTestSignal.tone(frequency, rate: 48_000, count: 48_000)
            var output: [Int16] = []
            for start in stride(from: 0, to: signal.count, by: 960) {
                output += try decode(decoder, try encode(encoder, signal[start..<(start + 960)]))
            }
            return output[12_000..<36_000]
        }
        let band = try roundTrip(3_300)
        XCTAssertEqual(20 * log10(CodecTestSignal.amplitude(of: 3_300, in: band, rate: 48_000) / 10_000), 0, accuracy: 1)
        let above = try roundTrip(5_000)
        XCTAssertLessThan(CodecTestSignal.rms(above), 10_000 / sqrt(2) * 0.01, "at least 40 dB down")
        XCTAssertLessThan(CodecTestSignal.amplitude(of: 3_000, in: above, rate: 48_000), 100, "no alias at 3 kHz")
    }

    func testG722KeepsTheWidebandAndRemovesWhatWouldAlias() throws {
        // G.722 carries 50–7000 Hz: 6 kHz, which G.711 cannot carry, passes at its level; 10 kHz
        // (above the 8 kHz Nyquist limit of 16 kHz sampling, it would fold to 6 kHz) comes out
        // at least 40 dB down, both ways through 16 kHz.
        func roundTrip(_ codec: MediaCodec, _ frequency: Double) throws -> ArraySlice<Int16> {
            let encoder = try codec.makeEncoder(ptime: 20)
            let decoder = try codec.makeDecoder()
            let signal = CodecTestSignal.tone(frequency, rate: 48_000, count: 48_000)
            var output: [Int16] = []
            for start in stride(from: 0, to: signal.count, by: 960) {
                let payload = try encode(encoder, signal[start..<(start + 960)])
                XCTAssertEqual(payload.count, 160, "64 kbit/s: 160 bytes per 20 ms")
                output += try decode(decoder, payload)
            }
            return output[12_000..<36_000]
        }
        let wide = try roundTrip(.g722, 6_000)
        XCTAssertEqual(20 * log10(CodecTestSignal.amplitude(of: 6_000, in: wide, rate: 48_000) / 10_000), 0, accuracy: 1.5)
        XCTAssertLessThan(CodecTestSignal.amplitude(of: 6_000, in: try roundTrip(.pcmu, 6_000), rate: 48_000), 100, "G.711 cannot")
        let above = try roundTrip(.g722, 10_000)
        XCTAssertLessThan(CodecTestSignal.rms(above), 10_000 / sqrt(2) * 0.01, "at least 40 dB down")
        XCTAssertLessThan(CodecTestSignal.amplitude(of: 6_000, in: above, rate: 48_000), 100, "no alias at 6 kHz")
    }

    func testG722DecodesLongPayloadsAndConcealsLosses() throws {
        let encoder = try MediaCodec.g722.makeEncoder(ptime: 60)
        let decoder = try MediaCodec.g722.makeDecoder()
        XCTAssertFalse(decoder.supportsFEC)
        let signal = CodecTestSignal.tone(1_000, rate: 48_000, count: 14_400)
        var last: [Int16] = []
        for start in stride(from: 0, to: 14_400, by: 2_880) {
            let payload = try encode(encoder, signal[start..<(start + 2_880)])
            XCTAssertEqual(payload.count, 480)
            XCTAssertEqual(try payload.withUnsafeBytes { try decoder.duration(of: $0) }, 480, "one RTP tick per byte")
            last = try decode(decoder, payload)
            XCTAssertEqual(last.count, 2_880)
        }
        XCTAssertGreaterThan(CodecTestSignal.rms(last[...]), 6_000)
        var pcm = [Int16](repeating: 0, count: 960)
        _ = try pcm.withUnsafeMutableBufferPointer { try decoder.conceal(frames48k: 960, into: $0) }
        XCTAssertEqual(pcm[0], last[2_879], "concealment continues from the last sample heard")
        XCTAssertGreaterThan(CodecTestSignal.rms(pcm[...]), 4_000)
        for _ in 0..<3 { _ = try pcm.withUnsafeMutableBufferPointer { try decoder.conceal(frames48k: 960, into: $0) } }
        XCTAssertEqual(CodecTestSignal.rms(pcm[...]), 0, "silent 60 ms into the loss")
        // The lost packet was encoded (the encoder's ADPCM state moved on) but never decoded;
        // the decoder's state re-converges: the next packets decode the tone again.
        _ = try encode(encoder, signal[0..<2_880])
        var after: [Int16] = []
        for start in stride(from: 0, to: 8_640, by: 2_880) { after = try decode(decoder, try encode(encoder, signal[start..<(start + 2_880)])) }
        XCTAssertEqual(20 * log10(CodecTestSignal.amplitude(of: 1_000, in: after[...], rate: 48_000) / 10_000), 0, accuracy: 1.5)
    }

    func testG711PayloadIsTheCompandedResampledSignal() throws {
        let encoder = try MediaCodec.pcma.makeEncoder(ptime: 20)
        let mu = try MediaCodec.pcmu.makeEncoder(ptime: 20)
        let silence = [Int16](repeating: 0, count: 960)
        XCTAssertEqual(try encode(encoder, silence[...]), [UInt8](repeating: 0xD5, count: 160))
        XCTAssertEqual(try encode(mu, silence[...]), [UInt8](repeating: 0xFF, count: 160))
    }

    func testWrongFrameSizeAndShortBuffersThrow() throws {
        for codec in Self.codecs {
            let encoder = try codec.makeEncoder(ptime: 20)
            XCTAssertThrowsError(try encode(encoder, [Int16](repeating: 0, count: 480)[...])) {
                XCTAssertEqual($0 as? MediaCodecError, .frameSizeMismatch(expected: 960, actual: 480))
            }
            let decoder = try codec.makeDecoder()
            XCTAssertThrowsError(try decode(decoder, [])) { error in
                XCTAssertTrue([MediaCodecError.invalidPayload, .opus(.invalidPacket)].contains(error as? MediaCodecError), "\(error)")
            }
            var tiny = [Int16](repeating: 0, count: 100)
            XCTAssertThrowsError(try tiny.withUnsafeMutableBufferPointer { try decoder.conceal(frames48k: 960, into: $0) }) {
                XCTAssertEqual($0 as? MediaCodecError, .bufferTooSmall(needed: 960, available: 100))
            }
        }
        let g711 = try MediaCodec.pcmu.makeEncoder(ptime: 20)
        var small = [UInt8](repeating: 0, count: 100)
        let frame = [Int16](repeating: 0, count: 960)
        XCTAssertThrowsError(try frame.withUnsafeBufferPointer { p in try small.withUnsafeMutableBytes { try g711.encode(p, into: $0) } }) {
            XCTAssertEqual($0 as? MediaCodecError, .bufferTooSmall(needed: 160, available: 100))
        }
        let g711Decoder = try MediaCodec.pcmu.makeDecoder()
        var pcm = [Int16](repeating: 0, count: 959)
        let payload = [UInt8](repeating: 0xFF, count: 160)
        XCTAssertThrowsError(
            try payload.withUnsafeBytes { p in try pcm.withUnsafeMutableBufferPointer { try g711Decoder.decode(p, into: $0) } }
        ) {
            XCTAssertEqual($0 as? MediaCodecError, .bufferTooSmall(needed: 960, available: 959))
        }
    }

    func testLongG711PayloadDecodesInChunks() throws {
        let decoder = try MediaCodec.pcma.makeDecoder()
        let payload = [UInt8](repeating: 0xAA, count: 900)  // 112.5 ms, longer than the 60 ms scratch
        var pcm = [Int16](repeating: 0, count: 5_400)
        let n = try payload.withUnsafeBytes { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
        XCTAssertEqual(n, 5_400)
        XCTAssertEqual(pcm[4_000...].map { Int($0) }.max(), 32_256, "a DC payload comes out at its level after the filter settles")
    }

    func testG711ConcealmentRepeatsTheLastAudioThenFades() throws {
        let encoder = try MediaCodec.pcmu.makeEncoder(ptime: 20)
        let decoder = try MediaCodec.pcmu.makeDecoder()
        XCTAssertFalse(decoder.supportsFEC)
        let signal = CodecTestSignal.tone(1_000, rate: 48_000, count: 9_600)
        var last: [Int16] = []
        for start in stride(from: 0, to: 9_600, by: 960) {
            last = try decode(decoder, try encode(encoder, signal[start..<(start + 960)]))
        }
        var pcm = [Int16](repeating: 0, count: 960)
        XCTAssertEqual(try pcm.withUnsafeMutableBufferPointer { try decoder.conceal(frames48k: 960, into: $0) }, 960)
        // Concealment continues from the last sample heard, playing the last 10 ms backwards, then forwards.
        XCTAssertEqual(pcm[0], last[959])
        XCTAssertEqual(Double(pcm[100]), Double(last[859]) * Double(2_880 - 100) / 2_880, accuracy: 1)
        XCTAssertEqual(Double(pcm[480]), Double(last[480]) * Double(2_880 - 480) / 2_880, accuracy: 1)
        XCTAssertEqual(Double(pcm[600]), Double(last[600]) * Double(2_880 - 600) / 2_880, accuracy: 1)
        let jumps = zip(pcm.dropFirst(), pcm).map { abs(Int($0) - Int($1)) }
        XCTAssertLessThan(jumps.max() ?? 0, 2_000, "no discontinuity at the turning points (1 kHz at 48 kHz moves < 1 400 per sample)")
        let first = CodecTestSignal.rms(pcm[...])
        _ = try pcm.withUnsafeMutableBufferPointer { try decoder.conceal(frames48k: 960, into: $0) }
        let second = CodecTestSignal.rms(pcm[...])
        _ = try pcm.withUnsafeMutableBufferPointer { try decoder.conceal(frames48k: 960, into: $0) }
        let third = CodecTestSignal.rms(pcm[...])
        XCTAssertGreaterThan(first, 4_000)
        XCTAssertLessThan(second, first)
        XCTAssertLessThan(third, second)
        _ = try pcm.withUnsafeMutableBufferPointer { try decoder.conceal(frames48k: 960, into: $0) }
        XCTAssertEqual(CodecTestSignal.rms(pcm[...]), 0, "silent 60 ms into the loss")
        var next = [Int16](repeating: 0, count: 960)
        let fec = try [UInt8](repeating: 0xFF, count: 160).withUnsafeBytes { p in
            try next.withUnsafeMutableBufferPointer { try decoder.decodeFEC(from: p, frames48k: 960, into: $0) }
        }
        XCTAssertNil(fec)
        // A good packet restarts the fade.
        _ = try decode(decoder, try encode(encoder, signal[0..<960]))
        _ = try pcm.withUnsafeMutableBufferPointer { try decoder.conceal(frames48k: 960, into: $0) }
        XCTAssertGreaterThan(CodecTestSignal.rms(pcm[...]), 4_000)
    }

    func testOpusFECAndConcealmentThroughTheAbstraction() throws {
        let codec = MediaCodec.opus(OpusSettings(packetLossPercent: 20))
        let encoder = try codec.makeEncoder(ptime: 20)
        let decoder = try codec.makeDecoder()
        XCTAssertTrue(decoder.supportsFEC)
        let signal = CodecTestSignal.voiceLike(count: 9_600)
        var payloads: [[UInt8]] = []
        for start in stride(from: 0, to: 9_600, by: 960) { payloads.append(try encode(encoder, signal[start..<(start + 960)])) }
        for p in payloads[0..<5] { _ = try decode(decoder, p) }
        var pcm = [Int16](repeating: 0, count: 960)
        let recovered = try payloads[6].withUnsafeBytes { p in
            try pcm.withUnsafeMutableBufferPointer { try decoder.decodeFEC(from: p, frames48k: 960, into: $0) }
        }
        XCTAssertEqual(recovered, 960)
        XCTAssertGreaterThan(CodecTestSignal.rms(pcm[...]), 500)
        XCTAssertEqual(try decode(decoder, payloads[6]).count, 960)
        XCTAssertEqual(try pcm.withUnsafeMutableBufferPointer { try decoder.conceal(frames48k: 960, into: $0) }, 960)
        XCTAssertThrowsError(try [UInt8(0x03), 0x00].withUnsafeBytes { try decoder.duration(of: $0) }) {
            XCTAssertEqual($0 as? MediaCodecError, .opus(.invalidPacket))
        }
    }

    func testOpusDTXSilenceMeansNothingToSend() throws {
        let encoder = try MediaCodec.opus(OpusSettings(dtx: true)).makeEncoder(ptime: 20)
        let silence = [Int16](repeating: 0, count: 960)
        var sizes: [Int] = []
        for _ in 0..<50 { sizes.append(try encode(encoder, silence[...]).count) }
        XCTAssertGreaterThan(sizes.prefix(3).min() ?? 0, 0, "the first frames are sent")
        XCTAssertGreaterThanOrEqual(sizes.suffix(30).filter { $0 == 0 }.count, 25, "\(sizes)")
    }

    func testHotPathRunsRepeatedlyOnCallerBuffers() throws {
        // The hot path works on caller buffers; G.711's scratch space is fixed at creation.
        for codec in Self.codecs {
            let encoder = try codec.makeEncoder(ptime: 20)
            let decoder = try codec.makeDecoder()
            let frame = CodecTestSignal.tone(440, rate: 48_000, count: 960)
            var payload = [UInt8](repeating: 0, count: encoder.maxPayloadSize)
            var pcm = [Int16](repeating: 0, count: 960)
            try frame.withUnsafeBufferPointer { input in
                try payload.withUnsafeMutableBytes { out in
                    try pcm.withUnsafeMutableBufferPointer { decoded in
                        for _ in 0..<100 {
                            let n = try encoder.encode(input, into: out)
                            XCTAssertEqual(try decoder.decode(UnsafeRawBufferPointer(rebasing: out[0..<n]), into: decoded), 960)
                        }
                    }
                }
            }
        }
    }
}
