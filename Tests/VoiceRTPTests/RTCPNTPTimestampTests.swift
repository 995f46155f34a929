import XCTest
@testable import VoiceRTP
import VoiceSupport
import VoiceMediaTypes

final class RTCPNTPTimestampTests: XCTestCase {
    func testUnixEpochIsNTPSecond2208988800() {
        let ntp = NTPTimestamp(unixSeconds: 0)
        XCTAssertEqual(ntp.seconds, 2_208_988_800)
        XCTAssertEqual(ntp.fraction, 0)
    }

    func testFractionIsBinary() {
        XCTAssertEqual(NTPTimestamp(secondsSince1900: 1.5).rawValue, 0x0000_0001_8000_0000)
        XCTAssertEqual(NTPTimestamp(secondsSince1900: 0.25).fraction, 0x4000_0000)
        XCTAssertEqual(NTPTimestamp(seconds: 3, fraction: 0xC000_0000).secondsSince1900, 3.75)
    }

    func testCompactIsMiddle32Bits() {
        XCTAssertEqual(NTPTimestamp(seconds: 0xABCD_B710, fraction: 0x8000_1234).compact, 0xB710_8000)
    }

    func testMediaTimeRoundTripToTheNanosecond() {
        for ns: Int64 in [0, 1, 999_999_999, 1_500_000_000, 3_913_056_000_123_456_789] {
            let time = MediaTime(nanoseconds: ns)
            XCTAssertEqual(NTPTimestamp(sinceEpoch: time).sinceEpoch, time, "\(ns) ns")
        }
        XCTAssertEqual(NTPTimestamp(sinceEpoch: MediaTime(nanoseconds: -5)).rawValue, 0)
    }

    func testFractionRoundsToNearest() {
        let ntp = NTPTimestamp(sinceEpoch: MediaTime(nanoseconds: 1_999_999_999))
        XCTAssertEqual(ntp.seconds, 1)
        XCTAssertEqual(ntp.fraction, 0xFFFF_FFFC)  // 0.999999999 × 2³² = 4294967291.7
    }

    func testCompactDurations() {
        XCTAssertEqual(NTPTimestamp.compact(duration: .milliseconds(5250)), 0x0005_4000)
        XCTAssertEqual(NTPTimestamp.duration(compact: 0x0005_4000), .milliseconds(5250))
        XCTAssertEqual(NTPTimestamp.compact(duration: MediaTime(nanoseconds: -1)), 0)
        XCTAssertEqual(NTPTimestamp.compact(duration: .seconds(70000)), UInt32.max)
    }

    func testOrdering() {
        XCTAssertLessThan(NTPTimestamp(seconds: 1, fraction: UInt32.max), NTPTimestamp(seconds: 2, fraction: 0))
    }
}
