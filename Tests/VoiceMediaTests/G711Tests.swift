import XCTest
@testable import VoiceMedia
import VoiceMediaTypes
import VoiceSupport

final class G711Tests: XCTestCase {
    // MARK: μ-law

    /// Known code ↔ value pairs: the ends of the scale and both zeros (G.711 Table 2, 16-bit scale).
    func testULawKnownValues() {
        let decoded: [(UInt8, Int16)] = [
            (0x00, -32_124), (0x80, 32_124), (0xFF, 0), (0x7F, 0), (0xFE, 8), (0x7E, -8),
            (0xEF, 132), (0xDF, 396), (0xCF, 924), (0xBF, 1_980), (0xAF, 4_092),
            (0x9F, 8_316), (0x8F, 16_764),
        ]
        for (code, value) in decoded { XCTAssertEqual(G711.linear(fromULaw: code), value, "code \(code)") }
        let encoded: [(Int16, UInt8)] = [
            (0, 0xFF), (-1, 0x7F), (32_767, 0x80), (-32_768, 0x00), (8, 0xFE), (-9, 0x7E),
            (124, 0xEF), (123, 0xF0),
        ]
        for (value, code) in encoded { XCTAssertEqual(G711.ulaw(fromLinear: value), code, "value \(value)") }
    }

    /// Segment end points from G.711 Table 2 (14-bit: 31, 95, 223, 479, 991, 2015, 4063), ×4 in 16-bit.
    func testULawSegmentBoundaries() {
        let segmentStarts = [0, 124, 380, 892, 1_916, 3_964, 8_060, 16_252]
        for (segment, start) in segmentStarts.enumerated() {
            let code = G711.ulaw(fromLinear: Int16(start))
            XCTAssertEqual(Int((~code >> 4) & 0x7), segment, "first value of segment \(segment)")
            XCTAssertEqual(code & 0x0F, 0x0F, "lowest step of segment \(segment)")
            if segment > 0 {
                XCTAssertEqual(Int((~G711.ulaw(fromLinear: Int16(start - 1)) >> 4) & 0x7), segment - 1)
            }
        }
    }

    // MARK: A-law

    func testALawKnownValues() {
        let decoded: [(UInt8, Int16)] = [
            (0xD5, 8), (0x55, -8), (0xAA, 32_256), (0x2A, -32_256), (0xD4, 24),
            (0xC5, 264), (0xF5, 528), (0xE5, 1_056), (0x95, 2_112), (0x85, 4_224),
            (0xB5, 8_448), (0xA5, 16_896),
        ]
        for (code, value) in decoded { XCTAssertEqual(G711.linear(fromALaw: code), value, "code \(code)") }
        let encoded: [(Int16, UInt8)] = [(0, 0xD5), (-1, 0x55), (32_767, 0xAA), (-32_768, 0x2A), (15, 0xD5), (16, 0xD4)]
        for (value, code) in encoded { XCTAssertEqual(G711.alaw(fromLinear: value), code, "value \(value)") }
    }

    /// A-law segments (G.711 Table 1) start at 32, 64, ... 2048 on the 12-bit scale: ×16 here
    /// after the 4-bit left-justification, and segments 0 and 1 share a step size.
    func testALawSegmentBoundaries() {
        for segment in 1...7 {
            let start = 128 << segment
            XCTAssertEqual(Int(((G711.alaw(fromLinear: Int16(start)) ^ 0x55) >> 4) & 0x7), segment, "start of \(segment)")
            XCTAssertEqual(Int(((G711.alaw(fromLinear: Int16(start - 1)) ^ 0x55) >> 4) & 0x7), segment - 1)
        }
    }

    // MARK: Both laws

    /// Decoding then re-encoding gives back every code (μ-law's "negative zero" 0x7F maps to 0xFF).
    func testEveryCodeSurvivesDecodeThenEncode() {
        for code in 0...255 {
            let c = UInt8(code)
            XCTAssertEqual(G711.alaw(fromLinear: G711.linear(fromALaw: c)), c, "A-law \(code)")
            XCTAssertEqual(G711.ulaw(fromLinear: G711.linear(fromULaw: c)), c == 0x7F ? 0xFF : c, "μ-law \(code)")
        }
    }

    /// Quantisation error stays within half a step of the segment the value falls in.
    func testRoundTripErrorIsBoundedByHalfAStep() {
        for x in stride(from: -32_000, through: 32_000, by: 1) {
            let v = Int16(x)
            let u = G711.ulaw(fromLinear: v)
            let uStep = 8 << Int((~u >> 4) & 0x7)
            XCTAssertLessThanOrEqual(abs(Int(G711.linear(fromULaw: u)) - x), uStep / 2 + 4, "μ-law \(x)")
            let a = G711.alaw(fromLinear: v)
            let aSegment = Int(((a ^ 0x55) >> 4) & 0x7)
            let aStep = 16 << max(aSegment - 1, 0)
            XCTAssertLessThanOrEqual(abs(Int(G711.linear(fromALaw: a)) - x), aStep / 2 + 1, "A-law \(x)")
        }
    }

    func testMonotonicAndSymmetric() {
        var previousU = Int16.min, previousA = Int16.min
        for x in stride(from: -32_768, through: 32_767, by: 7) {
            let u = G711.linear(fromULaw: G711.ulaw(fromLinear: Int16(x)))
            let a = G711.linear(fromALaw: G711.alaw(fromLinear: Int16(x)))
            XCTAssertGreaterThanOrEqual(u, previousU)
            XCTAssertGreaterThanOrEqual(a, previousA)
            previousU = u
            previousA = a
        }
        for code in 0...127 {
            XCTAssertEqual(G711.linear(fromULaw: UInt8(code)), -G711.linear(fromULaw: UInt8(code | 0x80)))
            XCTAssertEqual(G711.linear(fromALaw: UInt8(code)), -G711.linear(fromALaw: UInt8(code | 0x80)))
        }
    }

    func testBufferAPIsWorkOnSlicesAndRejectShortDestinations() {
        let storage: [Int16] = [99, 99, 0, -1, 1_000, -32_768, 32_767]
        var bytes = [UInt8](repeating: 0, count: 8)
        for law in G711.Law.allCases {
            let written = storage[2...].withUnsafeBufferPointer { pcm in
                bytes[1...].withUnsafeMutableBytes { G711.encode(pcm, law: law, into: $0) }
            }
            XCTAssertEqual(written, 5)
            let expected = storage[2...].map { law == .ulaw ? G711.ulaw(fromLinear: $0) : G711.alaw(fromLinear: $0) }
            XCTAssertEqual(Array(bytes[1...5]), expected)
            var decoded = [Int16](repeating: 0, count: 5)
            XCTAssertEqual(
                bytes[1...5].withUnsafeBytes { p in decoded.withUnsafeMutableBufferPointer { G711.decode(p, law: law, into: $0) } }, 5)
            XCTAssertEqual(decoded, expected.map { law == .ulaw ? G711.linear(fromULaw: $0) : G711.linear(fromALaw: $0) })
            var short = [UInt8](repeating: 0, count: 4)
            XCTAssertNil(storage[2...].withUnsafeBufferPointer { p in short.withUnsafeMutableBytes { G711.encode(p, law: law, into: $0) } })
            var shortPCM = [Int16](repeating: 0, count: 4)
            XCTAssertNil(
                bytes[1...5].withUnsafeBytes { p in shortPCM.withUnsafeMutableBufferPointer { G711.decode(p, law: law, into: $0) } })
        }
    }
}
