import NIOCore
import NIOEmbedded
import VoiceSupport
import VoiceTestKit
import XCTest

/// A test case on an in-memory SIP network and an `EmbeddedEventLoop`, fresh for each test: no
/// sockets and no real time; the test's thread runs the loop and moves its time.
class EmbeddedSIPTestCase: XCTestCase {
    var loop: EmbeddedEventLoop!
    var network: SIPMemoryNetwork!

    override func setUp() {
        super.setUp()
        loop = EmbeddedEventLoop()
        network = SIPMemoryNetwork(loop: loop)
    }

    override func tearDown() {
        try? loop.syncShutdownGracefully()
        super.tearDown()
    }

    /// Runs the loop until `future` completes (without advancing time) and returns its value.
    func value<T: Sendable>(_ future: EventLoopFuture<T>) throws -> T {
        let result = Locked<Result<T, Error>?>(nil)
        future.whenComplete { outcome in result.withLock { $0 = outcome } }
        loop.run()
        return try XCTUnwrap(result.withLock { $0 }, "the future did not complete").get()
    }
}
