import Dispatch
import Glibc
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes
import VoiceSupport

final class SIPMediaPortReservationTests: XCTestCase {
    /// Calls set up at once are never handed the same RTP port or each other's RTCP port: each
    /// reservation holds both sockets bound, so the kernel cannot hand them out again.
    func testPortsReservedAtOnceAreDistinctPairsHeldBound() throws {
        let reservations = Locked<[ReservedMediaPort]>([])
        DispatchQueue.concurrentPerform(iterations: 1_000) { _ in
            if let reserved = try? SIPMediaPortReservation.reserve(host: "127.0.0.1") { reservations.withLock { $0.append(reserved) } }
        }
        let held = reservations.withLock { $0 }
        let ports = held.map(\.port).sorted()
        XCTAssertEqual(ports.count, 1_000)
        let close = zip(ports, ports.dropFirst()).filter { $1 &- $0 <= 1 }
        XCTAssertTrue(close.isEmpty, "ports handed out twice or next to each other: \(close.prefix(5))")
        // While held, nobody else can bind them.
        let probe = held[0].port
        XCTAssertFalse(Self.canBind(probe), "the RTP port is held")
        XCTAssertFalse(Self.canBind(probe + 1), "the RTCP port is held")
        for reserved in held { reserved.release() }
        XCTAssertTrue(Self.canBind(probe), "released: free again")
    }

    /// The sockets go to exactly one taker, bound where the SDP said; a release afterwards does
    /// not close what was taken.
    func testTheSocketsAreTakenOnceAndStayOpen() throws {
        let reserved = try SIPMediaPortReservation.reserve(host: "127.0.0.1")
        let taken = try XCTUnwrap(reserved.take())
        XCTAssertNil(reserved.take(), "taken once")
        reserved.release()
        defer {
            close(taken.rtp)
            close(taken.rtcp)
        }
        XCTAssertEqual(Self.port(of: taken.rtp), reserved.port)
        XCTAssertEqual(Self.port(of: taken.rtcp), reserved.port + 1)
        XCTAssertFalse(Self.canBind(reserved.port), "still open at the taker")
    }

    /// A STUN query or TURN allocation from the port (seconds, against a server that does not
    /// answer) holds no lock: the call that takes the sockets, or releases them, does not wait
    /// for it, and the query's socket stays usable until it is done.
    func testAQueryFromThePortHoldsNoLockAgainstTakeOrRelease() throws {
        let reserved = try SIPMediaPortReservation.reserve(host: "127.0.0.1")
        let inQuery = DispatchSemaphore(value: 0), finish = DispatchSemaphore(value: 0)
        let portSeen = Locked<UInt16?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = reserved.withRTPDescriptor { descriptor in
                inQuery.signal()
                finish.wait()  // the query, waiting on its server
                portSeen.withLock { $0 = Self.port(of: descriptor) }
            }
            done.signal()
        }
        inQuery.wait()
        // Before, take() waited on the lock the query held: until the query ended.
        let took = DispatchSemaphore(value: 0)
        let takenBox = Locked<(rtp: Int32, rtcp: Int32)?>(nil)
        DispatchQueue.global().async {
            XCTAssertTrue(reserved.isHeld)
            takenBox.withLock { $0 = reserved.take() }
            reserved.release()
            took.signal()
        }
        XCTAssertEqual(took.wait(timeout: .now() + 10), .success, "take and release ran while the query was still waiting")
        let taken = try XCTUnwrap(takenBox.withLock { $0 }, "taken while the query runs")
        finish.signal()
        done.wait()
        XCTAssertEqual(portSeen.withLock { $0 }, reserved.port, "the query's socket stayed open on the port")
        XCTAssertEqual(Self.port(of: taken.rtp), reserved.port, "the taker's socket is open too")
        close(taken.rtp)
        close(taken.rtcp)
        let afterTake: Int32? = reserved.withRTPDescriptor { descriptor in descriptor }
        XCTAssertNil(afterTake, "nothing held after the take")
    }

    private static func canBind(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    private static func port(of fd: Int32) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }
}
