import XCTest

@testable import VoiceRTP
import VoiceSupport
import VoiceMediaTypes

final class RTPSourceGateTests: XCTestCase {
    private let real: UInt32 = 0x1111_1111
    private let forger: UInt32 = 0xBAD0_0BAD

    private func ms(_ n: Int) -> MediaTime { .milliseconds(Int64(n)) }

    func testTheFirstSourceIsTakenAfterARunInSequence() {
        var gate = RTPSourceGate()
        XCTAssertEqual(gate.admit(ssrc: real, sequenceNumber: 10, arrival: ms(0)), .probation)
        XCTAssertEqual(gate.admit(ssrc: real, sequenceNumber: 12, arrival: ms(20)), .probation, "a gap restarts the run")
        XCTAssertEqual(gate.admit(ssrc: real, sequenceNumber: 13, arrival: ms(40)), .probation)
        XCTAssertEqual(gate.admit(ssrc: real, sequenceNumber: 14, arrival: ms(60)), .accept)
        XCTAssertEqual(gate.current, real)
        XCTAssertEqual(gate.admit(ssrc: real, sequenceNumber: 100, arrival: ms(80)), .accept, "after that, loss is the jitter buffer's business")
    }

    func testOneForgedPacketNeverTakesTheStream() {
        var gate = RTPSourceGate()
        XCTAssertEqual(gate.admit(ssrc: forger, sequenceNumber: 7, arrival: ms(0)), .probation)
        for i in 0..<3 { _ = gate.admit(ssrc: real, sequenceNumber: UInt16(500 + i), arrival: ms(20 * (i + 1))) }
        XCTAssertEqual(gate.current, real, "the forger's lone packet did not win the start either")
        for i in 0..<50 {
            XCTAssertEqual(gate.admit(ssrc: UInt32(i), sequenceNumber: 1, arrival: ms(100 + i)), .foreign)
        }
    }

    func testForeignPacketsInterleavedWithALiveSourceNeverWinHoweverMany() {
        var gate = RTPSourceGate()
        for i in 0..<3 { _ = gate.admit(ssrc: real, sequenceNumber: UInt16(i), arrival: ms(20 * i)) }
        var forgedSeq: UInt16 = 9_000
        for tick in 3..<500 {
            XCTAssertEqual(gate.admit(ssrc: real, sequenceNumber: UInt16(tick), arrival: ms(20 * tick)), .accept)
            for k in 0..<20 {  // 1,000 forged packets per second, in sequence, between the real ones
                XCTAssertEqual(gate.admit(ssrc: forger, sequenceNumber: forgedSeq, arrival: ms(20 * tick + k)), .foreign)
                forgedSeq &+= 1
            }
        }
        XCTAssertEqual(gate.current, real)
    }

    func testANewSourceTakesOverOnceTheOldOneIsQuiet() {
        var gate = RTPSourceGate()
        for i in 0..<10 { _ = gate.admit(ssrc: real, sequenceNumber: UInt16(i), arrival: ms(20 * i)) }
        let next: UInt32 = 0x2222_2222
        // The bridge switches at 200 ms: the new source's packets prove themselves and win once
        // the old one has been silent for the takeover time.
        var verdicts: [RTPSourceGate.Verdict] = []
        for i in 0..<8 { verdicts.append(gate.admit(ssrc: next, sequenceNumber: UInt16(40_000 + i), arrival: ms(200 + 20 * i))) }
        XCTAssertEqual(verdicts, [.foreign, .foreign, .foreign, .foreign, .acceptNewSource, .accept, .accept, .accept])
        XCTAssertEqual(gate.current, next)
        XCTAssertEqual(gate.admit(ssrc: real, sequenceNumber: 11, arrival: ms(400)), .foreign, "the old source is now the foreign one")
    }

    func testAFloodOfMadeUpSourcesCannotCrowdOutARealCandidate() {
        var gate = RTPSourceGate()
        var verdict = RTPSourceGate.Verdict.probation
        for i in 0..<3 {
            verdict = gate.admit(ssrc: real, sequenceNumber: UInt16(i), arrival: ms(20 * i))
            for k in 0..<100 {  // a new SSRC per packet, between the real packets
                _ = gate.admit(ssrc: 0xF000_0000 | UInt32(i * 100 + k), sequenceNumber: 1, arrival: ms(20 * i + k / 10))
            }
        }
        XCTAssertEqual(verdict, .accept)
        XCTAssertEqual(gate.current, real)
    }

    func testResetForgetsTheSource() {
        var gate = RTPSourceGate()
        for i in 0..<3 { _ = gate.admit(ssrc: real, sequenceNumber: UInt16(i), arrival: ms(20 * i)) }
        gate.reset()
        XCTAssertNil(gate.current)
        XCTAssertEqual(gate.admit(ssrc: forger, sequenceNumber: 1, arrival: ms(100)), .probation)
    }
}
