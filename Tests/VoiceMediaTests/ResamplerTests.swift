import XCTest
@testable import VoiceMedia
import VoiceMediaTypes
import VoiceSupport

final class ResamplerTests: XCTestCase {
    /// Runs `input` through `resampler` in blocks of `block` samples, as a stream would.
    private func run(_ resampler: Resampler, _ input: [Int16], block: Int) throws -> [Int16] {
        var output: [Int16] = []
        var buffer = [Int16](repeating: 0, count: resampler.outputCapacity(forInput: block) + 16)
        var start = 0
        while start < input.count {
            let chunk = input[start..<min(start + block, input.count)]
            let result = try chunk.withUnsafeBufferPointer { p in
                try buffer.withUnsafeMutableBufferPointer { try resampler.process(p, into: $0) }
            }
            XCTAssertEqual(result.consumed, chunk.count)
            output += buffer[0..<result.produced]
            start += block
        }
        return output
    }

    func testIntegerRatiosProduceExactCounts() throws {
        let down = try Resampler(inputRate: 48_000, outputRate: 8_000)
        let up = try Resampler(inputRate: 8_000, outputRate: 48_000)
        let wide = try Resampler(inputRate: 48_000, outputRate: 16_000)
        let signal = CodecTestSignal.tone(440, rate: 48_000, count: 960)
        for _ in 0..<5 {
            XCTAssertEqual(try run(down, signal, block: 960).count, 160)
            XCTAssertEqual(try run(up, Array(signal[0..<160]), block: 160).count, 960)
            XCTAssertEqual(try run(wide, signal, block: 960).count, 320)
        }
    }

    func testToneSurvives48kTo8kAndBackWithFrequencyAndLevel() throws {
        let down = try Resampler(inputRate: 48_000, outputRate: 8_000, quality: 5)
        let up = try Resampler(inputRate: 8_000, outputRate: 48_000, quality: 5)
        let input = CodecTestSignal.tone(1_000, rate: 48_000, count: 48_000)
        let narrow = try run(down, input, block: 960)
        let output = try run(up, narrow, block: 160)
        XCTAssertEqual(output.count, input.count)
        // Skip the filters' start-up; measure 0.5 s (a whole number of periods).
        let steady = output[12_000..<36_000]
        let level = CodecTestSignal.amplitude(of: 1_000, in: steady, rate: 48_000)
        XCTAssertEqual(20 * log10(level / 10_000), 0, accuracy: 0.5, "level within ±0.5 dB")
        for f in [500.0, 900, 1_100, 2_000, 3_000] {
            XCTAssertLessThan(CodecTestSignal.amplitude(of: f, in: steady, rate: 48_000), 100, "no energy at \(f) Hz")
        }
        // Frequency: 1 kHz over 0.5 s is 1000 zero crossings.
        let crossings = zip(steady.dropFirst(), steady).filter { ($0 >= 0) != ($1 >= 0) }.count
        XCTAssertEqual(crossings, 1_000, accuracy: 2)
        // The total delay is the sum of the two filter latencies, measured by correlation.
        let delay = down.outputLatency * 6 + up.outputLatency
        XCTAssertGreaterThan(CodecTestSignal.correlation(input[12_000..<36_000], output[(12_000 + delay)..<(36_000 + delay)]), 0.99)
    }

    func testDownsamplingRemovesA5kHzToneInsteadOfAliasingIt() throws {
        let down = try Resampler(inputRate: 48_000, outputRate: 8_000, quality: 5)
        let input = CodecTestSignal.tone(5_000, rate: 48_000, count: 48_000)
        let output = try run(down, input, block: 960)
        let steady = output[2_000..<6_000]
        // 5 kHz is above the 4 kHz Nyquist limit; dropping samples would fold it to 3 kHz at full level.
        XCTAssertLessThan(CodecTestSignal.rms(steady), 10_000 / sqrt(2) * 0.01, "at least 40 dB down")
        XCTAssertLessThan(CodecTestSignal.amplitude(of: 3_000, in: steady, rate: 8_000), 100)
        // The naive decimator this replaces keeps the alias: the measurement can tell them apart.
        let dropped = stride(from: 0, to: input.count, by: 6).map { input[$0] }
        XCTAssertGreaterThan(CodecTestSignal.amplitude(of: 3_000, in: dropped[2_000..<6_000], rate: 8_000), 9_000)
    }

    func testShortOutputBufferConsumesOnlyWhatFits() throws {
        let down = try Resampler(inputRate: 48_000, outputRate: 8_000)
        let input = CodecTestSignal.tone(440, rate: 48_000, count: 960)
        var out = [Int16](repeating: 0, count: 40)
        let result = try input.withUnsafeBufferPointer { p in try out.withUnsafeMutableBufferPointer { try down.process(p, into: $0) } }
        XCTAssertEqual(result.produced, 40)
        XCTAssertEqual(result.consumed, 240)
    }

    func testInvalidArgumentsThrowTypedErrors() throws {
        XCTAssertThrowsError(try Resampler(inputRate: 0, outputRate: 8_000)) { XCTAssertEqual($0 as? ResamplerError, .invalidArgument) }
        XCTAssertThrowsError(try Resampler(inputRate: 48_000, outputRate: -1)) { XCTAssertEqual($0 as? ResamplerError, .invalidArgument) }
        XCTAssertThrowsError(try Resampler(inputRate: 48_000, outputRate: 8_000, quality: 11)) {
            XCTAssertEqual($0 as? ResamplerError, .invalidArgument)
        }
        XCTAssertThrowsError(try Resampler(inputRate: 48_000, outputRate: 8_000, channels: 0)) {
            XCTAssertEqual($0 as? ResamplerError, .invalidArgument)
        }
        let stereo = try Resampler(inputRate: 48_000, outputRate: 8_000, channels: 2)
        let odd = [Int16](repeating: 0, count: 961)
        var out = [Int16](repeating: 0, count: 400)
        XCTAssertThrowsError(
            try odd.withUnsafeBufferPointer { p in try out.withUnsafeMutableBufferPointer { try stereo.process(p, into: $0) } }
        ) {
            XCTAssertEqual($0 as? ResamplerError, .invalidArgument)
        }
        XCTAssertTrue(ResamplerError.invalidArgument.description.contains("Invalid argument"), ResamplerError.invalidArgument.description)
    }

    func testQualityRatesAndLatency() throws {
        let r = try Resampler(inputRate: 48_000, outputRate: 8_000, quality: 3)
        XCTAssertEqual(r.quality, 3)
        try r.setQuality(8)
        XCTAssertEqual(r.quality, 8)
        XCTAssertThrowsError(try r.setQuality(-1)) { XCTAssertEqual($0 as? ResamplerError, .invalidArgument) }
        XCTAssertGreaterThan(r.inputLatency, 0)
        XCTAssertEqual(r.outputLatency, r.inputLatency / 6, accuracy: 1)
        try r.setRates(input: 48_000, output: 16_000)
        XCTAssertEqual(r.outputRate, 16_000)
        XCTAssertEqual(r.outputCapacity(forInput: 960), 320)
    }

    func testSkipZerosRemovesLeadingDelay() throws {
        let plain = try Resampler(inputRate: 8_000, outputRate: 48_000)
        let skipping = try Resampler(inputRate: 8_000, outputRate: 48_000)
        try skipping.skipZeros()
        let input = [Int16](repeating: 10_000, count: 160)
        let a = try run(plain, input, block: 160)
        let b = try run(skipping, input, block: 160)
        // A step reaches half its height one filter delay later without skipZeros.
        let halfA = try XCTUnwrap(a.firstIndex { $0 > 5_000 })
        let halfB = try XCTUnwrap(b.firstIndex { $0 > 5_000 })
        XCTAssertGreaterThan(plain.outputLatency, 0)
        XCTAssertEqual(halfA - halfB, plain.outputLatency, accuracy: 6)
        XCTAssertLessThan(halfB, 6)
    }

    func testResetClearsHistory() throws {
        let r = try Resampler(inputRate: 48_000, outputRate: 8_000)
        _ = try run(r, [Int16](repeating: 20_000, count: 960), block: 960)
        try r.reset()
        let out = try run(r, [Int16](repeating: 0, count: 960), block: 960)
        XCTAssertEqual(out.map { abs(Int($0)) }.max(), 0)
    }
}
