import NIOCore
import NIOPosix
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes
import VoiceSupport

/// Connections that hold the listener without using it: too many from one address, silent or
/// trickling ones (slow-loris), and a full table that must still let a new client in.
final class SIPTransportLimitsTests: SIPTransportTestCase {
    private func listen(_ recorder: SIPTransportEventRecorder, _ configure: (inout SIPTransportConfiguration) -> Void) throws -> Int {
        var configuration = SIPTransportConfiguration()
        configure(&configuration)
        let layer = try makeLayer(recorder, configuration: configuration)
        return try XCTUnwrap(layer.listen(.tcp, host: "127.0.0.1", port: 0).wait().address.port)
    }

    private func messages(_ recorder: SIPTransportEventRecorder) -> Int {
        recorder.all.filter { if case .received = $0 { return true } else { return false } }.count
    }

    func testConnectionsBeyondThePerSourceLimitAreClosedOthersStillServed() throws {
        let recorder = SIPTransportEventRecorder()
        let port = try listen(recorder) { $0.maximumConnectionsPerSource = 4 }
        let hog = (0..<7).compactMap { _ in RawTCPClient(from: "127.0.0.2", to: "127.0.0.1", port: port) }
        XCTAssertEqual(hog.count, 7, "the kernel accepts them all")
        let closed = hog.map { $0.isClosedByPeer(within: 0.3) }
        XCTAssertEqual(closed.filter { $0 }.count, 3, "three beyond the four allowed from 127.0.0.2: \(closed)")
        XCTAssertEqual(closed.prefix(4), [false, false, false, false], "the first four stay")
        let other = try XCTUnwrap(RawTCPClient(from: "127.0.0.3", to: "127.0.0.1", port: port))
        XCTAssertEqual(other.sendNow(SIPTransportFixtures.options(transport: "TCP")), SIPTransportFixtures.options(transport: "TCP").count)
        XCTAssertTrue(recorder.waitUntil { messages(recorder) == 1 }, "another address is served")
    }

    func testSilentAndTricklingConnectionsAreClosedAtTheMessageDeadline() throws {
        let recorder = SIPTransportEventRecorder()
        let port = try listen(recorder) { $0.messageCompletionTimeout = .milliseconds(800) }
        let silent = try XCTUnwrap(RawTCPClient(to: "127.0.0.1", port: port))
        let trickler = try XCTUnwrap(RawTCPClient(to: "127.0.0.1", port: port))
        let polite = try XCTUnwrap(RawTCPClient(to: "127.0.0.1", port: port))
        polite.sendNow(SIPTransportFixtures.options(transport: "TCP"))
        // Half a second per byte: each byte is traffic, so an idle timeout alone never fires.
        let message = SIPTransportFixtures.options(transport: "TCP")
        let started = Date()
        var trickled = 0
        while Date().timeIntervalSince(started) < 2, trickler.sendNow([message[trickled]]) == 1 {
            trickled += 1
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTAssertLessThan(trickled, 15, "the trickler was cut off after \(trickled) bytes")
        XCTAssertTrue(silent.isClosedByPeer(within: 1), "a connection that never sends is closed")
        XCTAssertTrue(trickler.isClosedByPeer(within: 1))
        XCTAssertFalse(polite.isClosedByPeer(within: 0.5), "a connection that sent a message may idle")
        XCTAssertEqual(messages(recorder), 1)
    }

    func testAFullTableClosesTheOldestSilentConnectionForANewClient() throws {
        let recorder = SIPTransportEventRecorder()
        let port = try listen(recorder) {
            $0.maximumConnections = 20
            $0.maximumConnectionsPerSource = 100
        }
        var silent: [RawTCPClient] = []
        for _ in 0..<20 {
            silent.append(try XCTUnwrap(RawTCPClient(from: "127.0.0.2", to: "127.0.0.1", port: port)))
            Thread.sleep(forTimeInterval: 0.005)  // so the order of opening is the order of age
        }
        XCTAssertFalse(silent[0].isClosedByPeer(within: 0.3))
        let client = try XCTUnwrap(RawTCPClient(from: "127.0.0.3", to: "127.0.0.1", port: port))
        client.sendNow(SIPTransportFixtures.options(transport: "TCP"))
        XCTAssertTrue(recorder.waitUntil { messages(recorder) == 1 }, "the new client got in")
        XCTAssertTrue(silent[0].isClosedByPeer(within: 1), "the oldest silent connection made room")
        XCTAssertFalse(silent[19].isClosedByPeer(within: 0.2), "and only that one")
        XCTAssertFalse(client.isClosedByPeer(within: 0.2))
    }
}
