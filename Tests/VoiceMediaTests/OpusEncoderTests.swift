import XCTest
@testable import VoiceMedia
import VoiceMediaTypes
import VoiceSupport

final class OpusEncoderTests: XCTestCase {
    /// Encodes `signal` in frames of `frameSize` samples per channel.
    static func encodeAll(_ encoder: VoiceMedia.OpusEncoder, _ signal: [Int16], frameSize: Int) throws -> [[UInt8]] {
        var packets: [[UInt8]] = []
        var out = [UInt8](repeating: 0, count: VoiceMedia.OpusEncoder.maxPacketSize)
        let step = frameSize * encoder.channels
        var start = 0
        while start + step <= signal.count {
            let n = try signal[start..<(start + step)].withUnsafeBufferPointer { pcm in
                try out.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) }
            }
            packets.append(Array(out[0..<n]))
            start += step
        }
        return packets
    }

    func testRejectsUnsupportedSampleRatesAndChannelCounts() {
        for rate in [0, 11_025, 22_050, 44_100, 96_000] {
            XCTAssertThrowsError(try VoiceMedia.OpusEncoder(sampleRate: rate)) { XCTAssertEqual($0 as? OpusError, .badArgument) }
        }
        for channels in [0, 3, -1] {
            XCTAssertThrowsError(try VoiceMedia.OpusEncoder(channels: channels)) { XCTAssertEqual($0 as? OpusError, .badArgument) }
        }
        for rate in [8_000, 12_000, 16_000, 24_000, 48_000] {
            XCTAssertNoThrow(try VoiceMedia.OpusEncoder(sampleRate: rate, channels: 2))
        }
    }

    func testEveryFrameDurationEncodesAndReportsItsDuration() throws {
        for rate in [16_000, 48_000] {
            for ms in [10, 20, 40, 60] {
                let encoder = try VoiceMedia.OpusEncoder(sampleRate: rate)
                let decoder = try VoiceMedia.OpusDecoder(sampleRate: rate)
                let frameSize = rate / 1000 * ms
                XCTAssertEqual(encoder.frameSize(milliseconds: ms), frameSize)
                let signal = CodecTestSignal.tone(440, rate: rate, count: frameSize * 5)
                let packets = try Self.encodeAll(encoder, signal, frameSize: frameSize)
                XCTAssertEqual(packets.count, 5)
                var pcm = [Int16](repeating: 0, count: decoder.maxFrameSize)
                for packet in packets {
                    XCTAssertEqual(
                        try packet.withUnsafeBytes { try VoiceMedia.OpusDecoder.sampleCount(of: $0, sampleRate: rate) }, frameSize)
                    let n = try packet.withUnsafeBytes { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
                    XCTAssertEqual(n, frameSize, "\(ms) ms at \(rate) Hz")
                    XCTAssertEqual(try decoder.lastPacketDuration, frameSize)
                }
            }
        }
        let encoder = try VoiceMedia.OpusEncoder()
        XCTAssertNil(encoder.frameSize(milliseconds: 30))
        XCTAssertNil(encoder.frameSize(milliseconds: 5))
    }

    func testInvalidFrameSizesThrowTypedError() throws {
        let encoder = try VoiceMedia.OpusEncoder()
        // 2.5 and 5 ms are valid for libopus but not for this API; 80/100/120 ms and odd sizes are rejected too.
        for count in [0, 1, 7, 120, 240, 479, 481, 1_440, 3_840, 4_800, 5_760] {
            let pcm = [Int16](repeating: 0, count: count)
            var out = [UInt8](repeating: 0, count: 4_000)
            XCTAssertThrowsError(
                try pcm.withUnsafeBufferPointer { p in
                    try out.withUnsafeMutableBytes { try encoder.encode(p, into: $0) }
                }, "\(count) samples"
            ) { XCTAssertEqual($0 as? OpusError, .badArgument) }
        }
        let stereo = try VoiceMedia.OpusEncoder(channels: 2)
        let odd = [Int16](repeating: 0, count: 1_921)
        var out = [UInt8](repeating: 0, count: 4_000)
        XCTAssertThrowsError(try odd.withUnsafeBufferPointer { p in try out.withUnsafeMutableBytes { try stereo.encode(p, into: $0) } }) {
            XCTAssertEqual($0 as? OpusError, .badArgument)
        }
    }

    func testEmptyOutputBufferThrowsBufferTooSmall() throws {
        let encoder = try VoiceMedia.OpusEncoder()
        let pcm = CodecTestSignal.tone(440, rate: 48_000, count: 960)
        var out: [UInt8] = []
        XCTAssertThrowsError(try pcm.withUnsafeBufferPointer { p in try out.withUnsafeMutableBytes { try encoder.encode(p, into: $0) } }) {
            XCTAssertEqual($0 as? OpusError, .bufferTooSmall)
        }
    }

    func testCBRPacketsHaveConstantSizeAndVBRDoesNot() throws {
        let signal = CodecTestSignal.voiceLike(count: 48_000)
        let cbr = try VoiceMedia.OpusEncoder()
        try cbr.setBitrate(32_000)
        try cbr.setBitrateMode(.cbr)
        let cbrSizes = Set(try Self.encodeAll(cbr, signal, frameSize: 960).map(\.count))
        XCTAssertEqual(cbrSizes, [80], "32 kbps × 20 ms = 80 bytes, every packet")

        let vbr = try VoiceMedia.OpusEncoder()
        try vbr.setBitrate(32_000)
        try vbr.setBitrateMode(.vbr)
        XCTAssertGreaterThan(Set(try Self.encodeAll(vbr, signal, frameSize: 960).map(\.count)).count, 3)
    }

    func testBitrateChangeWhileRunningShowsInPacketSizes() throws {
        let signal = CodecTestSignal.voiceLike(count: 96_000)
        let encoder = try VoiceMedia.OpusEncoder()
        try encoder.setBitrateMode(.cbr)
        try encoder.setBitrate(16_000)
        let low = try Self.encodeAll(encoder, Array(signal[0..<48_000]), frameSize: 960)
        try encoder.setBitrate(64_000)
        let high = try Self.encodeAll(encoder, Array(signal[48_000...]), frameSize: 960)
        XCTAssertEqual(Set(low.map(\.count)), [40])
        XCTAssertEqual(Set(high.map(\.count)), [160])
    }

    func testDTXEmitsTinyPacketsOnSilence() throws {
        let silence = [Int16](repeating: 0, count: 48_000)
        let dtx = try VoiceMedia.OpusEncoder()
        try dtx.setDTX(true)
        let sizes = try Self.encodeAll(dtx, silence, frameSize: 960).map(\.count)
        // After a short hangover the encoder sends only 1-2 byte packets (TOC only).
        let tail = sizes.suffix(30)
        XCTAssertGreaterThanOrEqual(tail.filter { $0 <= 2 }.count, 25, "\(sizes)")
        XCTAssertTrue(try dtx.isInDTX)

        let noDTX = try VoiceMedia.OpusEncoder()
        let plain = try Self.encodeAll(noDTX, silence, frameSize: 960).map(\.count)
        XCTAssertFalse(try noDTX.isInDTX)
        XCTAssertLessThan(plain.suffix(30).filter { $0 <= 2 }.count, 25)
    }

    func testEverySetterRoundTripsThroughItsGetter() throws {
        let encoder = try VoiceMedia.OpusEncoder()
        for bps in [6_000, 24_000, 64_000] {
            try encoder.setBitrate(bps)
            XCTAssertEqual(try encoder.bitrate, bps)
        }
        for c in 0...10 {
            try encoder.setComplexity(c)
            XCTAssertEqual(try encoder.complexity, c)
        }
        for mode in OpusBitrateMode.allCases {
            try encoder.setBitrateMode(mode)
            XCTAssertEqual(try encoder.bitrateMode, mode)
        }
        for on in [true, false] {
            try encoder.setInbandFEC(on)
            XCTAssertEqual(try encoder.inbandFEC, on)
            try encoder.setDTX(on)
            XCTAssertEqual(try encoder.dtx, on)
        }
        for p in [0, 7, 100] {
            try encoder.setPacketLossPercent(p)
            XCTAssertEqual(try encoder.packetLossPercent, p)
        }
        for app in OpusApplication.allCases {
            try encoder.setApplication(app)
            XCTAssertEqual(try encoder.application, app)
        }
        for s in OpusSignal.allCases {
            try encoder.setSignal(s)
            XCTAssertEqual(try encoder.signal, s)
        }
        for b in OpusBandwidth.allCases {
            try encoder.setMaxBandwidth(b)
            XCTAssertEqual(try encoder.maxBandwidth, b)
        }
        XCTAssertThrowsError(try encoder.setComplexity(11)) { XCTAssertEqual($0 as? OpusError, .badArgument) }
        XCTAssertThrowsError(try encoder.setComplexity(-1)) { XCTAssertEqual($0 as? OpusError, .badArgument) }
        XCTAssertThrowsError(try encoder.setPacketLossPercent(101)) { XCTAssertEqual($0 as? OpusError, .badArgument) }
        XCTAssertThrowsError(try encoder.setBitrate(0)) { XCTAssertEqual($0 as? OpusError, .badArgument) }
        XCTAssertEqual(try encoder.complexity, 10, "a rejected value leaves the setting unchanged")
    }

    func testApplicationCannotChangeAfterFirstFrame() throws {
        let encoder = try VoiceMedia.OpusEncoder(application: .voip)
        _ = try Self.encodeAll(encoder, [Int16](repeating: 0, count: 960), frameSize: 960)
        XCTAssertThrowsError(try encoder.setApplication(.audio)) { XCTAssertEqual($0 as? OpusError, .badArgument) }
        XCTAssertEqual(try encoder.application, .voip)
    }

    func testLookaheadMatchesVoipDelay() throws {
        // 2.5 ms look-ahead plus 4 ms delay compensation for the non-low-delay modes.
        XCTAssertEqual(try VoiceMedia.OpusEncoder().lookahead, 312)
        XCTAssertEqual(try VoiceMedia.OpusEncoder(application: .restrictedLowDelay).lookahead, 120)
    }

    func testErrorDescriptionsComeFromLibopus() {
        XCTAssertTrue(OpusError.badArgument.description.contains("invalid argument"), OpusError.badArgument.description)
        XCTAssertTrue(OpusError.invalidPacket.description.contains("corrupted stream"), OpusError.invalidPacket.description)
        XCTAssertEqual(OpusError.bufferTooSmall.code, -2)
        XCTAssertEqual(OpusError.allocFail.code, -7)
        XCTAssertNotEqual(OpusError.internalError, OpusError.unimplemented)
        XCTAssertEqual(OpusError.invalidState.code, -6)
    }

    func testEncodeCostPerFrameAtComplexity5() throws {
        let encoder = try VoiceMedia.OpusEncoder()
        try encoder.setComplexity(5)
        let signal = CodecTestSignal.voiceLike(count: 48_000)
        let start = DispatchTime.now().uptimeNanoseconds
        let packets = try Self.encodeAll(encoder, signal, frameSize: 960)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3
        XCTAssertEqual(packets.count, 50)
        print("Opus encode, complexity 5, 20 ms mono 48 kHz: \(String(format: "%.0f", elapsed / 50)) µs/frame (debug build)")
    }
}
