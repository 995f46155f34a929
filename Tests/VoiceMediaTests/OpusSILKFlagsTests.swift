import VoiceTestKit
import XCTest

@testable import VoiceMedia
import VoiceSignals
import VoiceMediaTypes
import VoiceSupport

final class OpusSILKFlagsTests: XCTestCase {
    private func flags(_ bytes: [UInt8]) -> OpusSILKFlags? {
        bytes.withUnsafeBytes { OpusSILKFlags(packet: $0) }
    }

    func testReadsTheVADAndLBRRBitsAfterTheTOC() {
        // Hybrid FB 20 ms (config 15), code 0: VAD is bit 7, LBRR bit 6.
        let hybrid: UInt8 = 15 << 3
        XCTAssertEqual(flags([hybrid, 0b1100_0000]), OpusSILKFlags(voiced: true, lbrr: true))
        XCTAssertEqual(flags([hybrid, 0b1000_0000]), OpusSILKFlags(voiced: true, lbrr: false))
        XCTAssertEqual(flags([hybrid, 0b0100_0000]), OpusSILKFlags(voiced: false, lbrr: true))
        XCTAssertEqual(flags([hybrid, 0b0011_1111]), OpusSILKFlags(voiced: false, lbrr: false))
        // SILK-only WB 60 ms (config 11): three VAD flags, then LBRR at bit 4.
        let silk60: UInt8 = 11 << 3
        XCTAssertEqual(flags([silk60, 0b0011_0000]), OpusSILKFlags(voiced: true, lbrr: true))
        XCTAssertEqual(flags([silk60, 0b0010_1000]), OpusSILKFlags(voiced: true, lbrr: false))
        XCTAssertEqual(flags([silk60, 0b0001_0000]), OpusSILKFlags(voiced: false, lbrr: true))
        // SILK-only NB 40 ms (config 2): two VAD flags, LBRR at bit 5.
        XCTAssertEqual(flags([2 << 3, 0b0110_0000]), OpusSILKFlags(voiced: true, lbrr: true))
    }

    func testCELTMultiFrameAndShortPacketsHaveNoFlags() {
        XCTAssertNil(flags([16 << 3, 0xFF]), "CELT-only: no SILK layer")
        XCTAssertNil(flags([31 << 3, 0xFF]))
        XCTAssertNil(flags([(15 << 3) | 1, 0xFF, 0xFF]), "code 1: two frames")
        XCTAssertNil(flags([15 << 3]), "no byte after the TOC")
        XCTAssertNil(flags([]))
    }

    /// What libopus really emits: redundancy on voiced frames only when FEC is on and the hint is
    /// large enough for the bitrate, none with FEC off, and no VAD flag on silence.
    func testRealPacketsShowWhenLibopusSendsRedundancy() throws {
        func share(bitrate: Int, fec: Bool, hint: Int) throws -> (voiced: Int, lbrr: Int, parsed: Int) {
            let encoder = try OpusMediaEncoder(
                settings: OpusSettings(bitrate: bitrate, maxAverageBitrate: bitrate, fec: fec, packetLossPercent: hint), ptime: 20)
            let speech = TestSignals.speechLike(seconds: 4) + [Int16](repeating: 0, count: 48_000)
            var out = [UInt8](repeating: 0, count: 1_500)
            var voiced = 0, lbrr = 0, parsed = 0
            for start in stride(from: 0, to: speech.count - 960, by: 960) {
                let n = try speech.withUnsafeBufferPointer { s in
                    try out.withUnsafeMutableBytes { o in
                        try encoder.encode(UnsafeBufferPointer(rebasing: s[start..<(start + 960)]), into: o)
                    }
                }
                guard let f = out.withUnsafeBytes({ OpusSILKFlags(packet: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) else { continue }
                parsed += 1
                if f.voiced { voiced += 1 }
                if f.lbrr { lbrr += 1 }
            }
            return (voiced, lbrr, parsed)
        }
        let protected = try share(bitrate: 64_000, fec: true, hint: 3)
        XCTAssertGreaterThan(protected.parsed, 200, "hybrid packets at 64 kbps")
        XCTAssertGreaterThan(protected.voiced, 100)
        XCTAssertLessThan(protected.voiced, protected.parsed, "the trailing silence is not voiced")
        XCTAssertGreaterThan(protected.lbrr, protected.voiced / 2, "redundancy on most voiced frames")
        XCTAssertEqual(try share(bitrate: 64_000, fec: false, hint: 3).lbrr, 0, "FEC off: none")
        XCTAssertEqual(try share(bitrate: 64_000, fec: true, hint: 0).lbrr, 0, "hint 0: none")
        // At 32 kbps and complexity 5, libopus 1.3 judges a small hint not worth redundancy.
        let starved = try share(bitrate: 32_000, fec: true, hint: 3)
        let enough = try share(bitrate: 32_000, fec: true, hint: 12)
        XCTAssertLessThan(starved.lbrr, enough.lbrr / 4, "a small hint at 32 kbps sends little or no FEC")
        XCTAssertGreaterThan(enough.lbrr, enough.voiced / 2)
    }
}
