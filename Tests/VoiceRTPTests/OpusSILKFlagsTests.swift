import XCTest

@testable import VoiceRTP
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
}
