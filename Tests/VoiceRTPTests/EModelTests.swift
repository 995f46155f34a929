import XCTest
@testable import VoiceRTP
import VoiceMediaTypes
import VoiceSupport

final class EModelTests: XCTestCase {
    func testG107ReferencePoints() {
        // G.107: R = 93.2 with default parameters gives MOS ≈ 4.41; R = 50 → 2.58; R = 0 → 1.
        XCTAssertEqual(EModel.mos(rating: 93.2), 4.41, accuracy: 0.01)
        XCTAssertEqual(EModel.mos(rating: 50), 2.58, accuracy: 0.01)
        XCTAssertEqual(EModel.mos(rating: 0), 1)
        XCTAssertEqual(EModel.mos(rating: 120), 4.5)
    }

    func testDelayAndLossLowerTheScore() {
        let g711 = EModel.forCodec("PCMU")
        let clean = g711.mos(oneWayDelayMs: 20, packetLossPercent: 0)
        XCTAssertGreaterThan(clean, 4.3)
        XCTAssertLessThan(g711.mos(oneWayDelayMs: 300, packetLossPercent: 0), clean - 0.3, "delay past 177 ms hurts")
        let lossy = g711.mos(oneWayDelayMs: 20, packetLossPercent: 5)
        XCTAssertLessThan(lossy, clean - 0.4, "5 % loss costs about half a MOS point for G.711")
        // G.113 Appendix I: G.711 with PLC (Bpl 25.1) at 5 % random loss: Ie,eff ≈ 15.9.
        XCTAssertEqual(g711.rating(oneWayDelayMs: 0, packetLossPercent: 5), 93.2 - 15.9, accuracy: 0.2)
    }

    func testOpusToleratesLossBetterThanG711() {
        let opus = EModel.forCodec("opus"), g711 = EModel.forCodec("PCMA")
        XCTAssertGreaterThan(opus.mos(oneWayDelayMs: 50, packetLossPercent: 5), g711.mos(oneWayDelayMs: 50, packetLossPercent: 5))
    }
}
