@testable import VoiceRTP
import VoiceTestAudio
import VoiceMediaTypes
import XCTest

@testable import VoiceMedia

/// What libopus really sends, read with the pure parser (``OpusSILKFlags``).
final class OpusSILKFlagsLibopusTests: XCTestCase {
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
