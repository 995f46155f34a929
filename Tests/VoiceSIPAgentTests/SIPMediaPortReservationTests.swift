import Dispatch
import NIOConcurrencyHelpers
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes
import VoiceSupport

final class SIPMediaPortReservationTests: XCTestCase {
    /// Calls set up at once must not be handed the same RTP port (or each other's RTCP port):
    /// the kernel's random ephemeral ports repeat within a few hundred reservations.
    func testPortsReservedAtOnceAreDistinctAndApartFromEachOthersRTCP() throws {
        let ports = NIOLockedValueBox<[UInt16]>([])
        DispatchQueue.concurrentPerform(iterations: 2_000) { _ in
            if let port = try? SIPMediaPortReservation.reserve(host: "127.0.0.1") { ports.withLockedValue { $0.append(port) } }
        }
        let reserved = ports.withLockedValue { $0 }.sorted()
        XCTAssertEqual(reserved.count, 2_000)
        let close = zip(reserved, reserved.dropFirst()).filter { $1 &- $0 <= 1 }
        XCTAssertTrue(close.isEmpty, "ports handed out twice or next to each other: \(close.prefix(5))")
    }
}
