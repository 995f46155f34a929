import VoiceMediaTypes
import VoiceSupport
import XCTest
@testable import VoiceSIP

final class SIPTransactionConfigurationTests: XCTestCase {
    /// RFC 3261 Appendix A, Table 4, with T1 = 500 ms, T2 = 4 s, T4 = 5 s.
    func testTable4InitialValues() {
        let config = SIPTransactionConfiguration.rfc3261
        let table: [(SIPTransactionTimer, unreliable: Int64, reliable: Int64)] = [
            (.a, 500, 0), (.b, 32_000, 32_000), (.d, 32_000, 0),
            (.e, 500, 0), (.f, 32_000, 32_000), (.g, 500, 0),
            (.h, 32_000, 32_000), (.i, 5_000, 0), (.j, 32_000, 0),
            (.k, 5_000, 0), (.l, 32_000, 32_000), (.m, 32_000, 32_000),
            (.trying, 200, 200),
        ]
        XCTAssertEqual(table.count, SIPTransactionTimer.allCases.count)
        for (timer, unreliable, reliable) in table {
            XCTAssertEqual(config.initialInterval(of: timer, reliableTransport: false), .milliseconds(unreliable), "\(timer) over UDP")
            XCTAssertEqual(config.initialInterval(of: timer, reliableTransport: true), .milliseconds(reliable), "\(timer) over TCP")
        }
    }

    func testDoublingCapsAndNeverOverflows() {
        let config = SIPTransactionConfiguration.rfc3261
        XCTAssertEqual(config.doubled(.milliseconds(500), cappedAtT2: true), .milliseconds(1_000))
        XCTAssertEqual(config.doubled(.milliseconds(4_000), cappedAtT2: true), .milliseconds(4_000))
        XCTAssertEqual(config.doubled(.milliseconds(4_000), cappedAtT2: false), .milliseconds(8_000))
        XCTAssertEqual(config.doubled(MediaTime(nanoseconds: .max / 2 + 1), cappedAtT2: false), MediaTime(nanoseconds: .max))
        XCTAssertEqual(SIPTransactionTimer.a.description, "Timer A")
    }
}
