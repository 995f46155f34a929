import XCTest
@testable import VoiceRTP
import VoiceMediaTypes
import VoiceSupport

final class RTCPRoundTripTests: XCTestCase {
    func testRFC3550Example() throws {
        // RFC 3550 §6.4.1 figure: A = 0xb710:8000 (46864.500 s), LSR = 0xb705:2000 (46853.125 s),
        // DLSR = 0x0005:4000 (5.250 s): RTT = 6.125 s.
        let rtt = try XCTUnwrap(RTCPRoundTrip.compute(arrivalCompactNTP: 0xB710_8000, lsr: 0xB705_2000, dlsr: 0x0005_4000))
        XCTAssertEqual(rtt, .milliseconds(6125))
    }

    func testNoSenderReportYetGivesNil() {
        XCTAssertNil(RTCPRoundTrip.compute(arrivalCompactNTP: 0xB710_8000, lsr: 0, dlsr: 0))
    }

    func testNegativeResultGivesNil() {
        XCTAssertNil(RTCPRoundTrip.compute(arrivalCompactNTP: 0xB705_2000, lsr: 0xB705_2000, dlsr: 0x0000_0001))
    }

    func testZeroRoundTrip() {
        XCTAssertEqual(RTCPRoundTrip.compute(arrivalCompactNTP: 0x0010_0000, lsr: 0x000F_0000, dlsr: 0x0001_0000), .zero)
    }

    func testCompactClockWrap() {
        // LSR just before the 16-bit seconds wrap, arrival just after: 2 s round trip.
        XCTAssertEqual(
            RTCPRoundTrip.compute(arrivalCompactNTP: 0x0002_0000, lsr: 0xFFFF_0000, dlsr: 0x0001_0000),
            .seconds(2))
    }

    func testEndToEndWithSenderReportAndReportBlock() throws {
        // We send an SR at t0; the peer holds it 250 ms and answers; it arrives 80 ms after sending.
        let t0 = NTPTimestamp(unixSeconds: 1_700_000_000.125)
        let block = RTCPReportBlock(
            ssrc: 1, lastSR: t0.compact,
            delaySinceLastSR: NTPTimestamp.compact(duration: .milliseconds(250)))
        let arrival = NTPTimestamp(sinceEpoch: t0.sinceEpoch + .milliseconds(330))
        let rtt = try XCTUnwrap(
            RTCPRoundTrip.compute(
                arrivalCompactNTP: arrival.compact, lsr: block.lastSR,
                dlsr: block.delaySinceLastSR))
        XCTAssertEqual(rtt.milliseconds, 80, accuracy: 0.05, "compact NTP resolution is 1/65536 s")
    }
}
