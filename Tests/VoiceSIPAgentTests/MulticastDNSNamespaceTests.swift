import Foundation
import Synchronization
import VoiceAddress
import VoiceTestKit
import XCTest

@testable import VoiceSIPAgent

/// The mDNS resolver on a real link: two namespaces joined by a veth pair, a browser-like
/// responder in one answering to the group, our resolver in the other (its thread and
/// sockets made there).
final class MulticastDNSNamespaceTests: XCTestCase {
    private let hidden = "5b7c8d9e-1f20-4a3b-8c4d-5e6f7a8b9c0d.local"
    private var cleanup: [() -> Void] = []

    override func tearDown() {
        for step in cleanup.reversed() { step() }
        cleanup = []
    }

    /// Namespaces `ours` and `theirs`, a veth pair between them (10.61.0.1 and .2).
    private func link() throws -> (ours: NetworkNamespace, theirs: NetworkNamespace) {
        try require([NetworkNamespace.requirement()])
        let (ours, theirs) = try NetworkNamespace.linkedPair(prefixes: ("mo", "mt"), ends: ("m0", "m1"))
        cleanup.append { ours.delete() }
        cleanup.append { theirs.delete() }
        try ours.batch("link set m0 up", "addr add 10.61.0.1/24 dev m0")
        try theirs.batch("link set m1 up", "addr add 10.61.0.2/24 dev m1")
        return (ours, theirs)
    }

    private func resolve(_ names: [String], with resolver: MulticastDNSResolver, timeout: Duration = .seconds(1)) -> (
        [String: IPAddress], Duration
    ) {
        let result = Mutex<[String: IPAddress]?>(nil)
        let done = DispatchSemaphore(value: 0)
        let started = ContinuousClock.now
        resolver.resolve(names, timeout: timeout) { resolved in
            result.withLock { $0 = resolved }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "the lookup finished")
        return (result.withLock { $0 } ?? [:], ContinuousClock.now - started)
    }

    func testABrowsersNameResolvesOverTheLinkAndAnUnknownOneGivesNothing() throws {
        let (ours, theirs) = try link()
        let responder = try MulticastDNSResponder(names: [hidden: IPAddress("10.61.0.2")!], interface: "m1", in: theirs)
        cleanup.append { responder.stop() }
        // Another responder on the host (avahi, say) holds port 5353 too: the port is shared.
        let other = try MulticastDNSResponder(names: [:], interface: "m0", in: ours)
        cleanup.append { other.stop() }
        let resolver = try ours.perform { MulticastDNSResolver() }
        cleanup.append { resolver.shutdown() }

        let (found, took) = resolve([hidden.uppercased()], with: resolver)
        XCTAssertEqual(found, [hidden: IPAddress("10.61.0.2")!])
        XCTAssertLessThan(took, .milliseconds(900), "answered, not timed out")
        XCTAssertEqual(responder.queriesAnswered.load(ordering: .relaxed), 1)

        let (none, waited) = resolve(["00000000-0000-4000-8000-000000000000.local"], with: resolver, timeout: .milliseconds(400))
        XCTAssertEqual(none, [:])
        XCTAssertGreaterThanOrEqual(waited, .milliseconds(400), "given up at the deadline")

        // A name heard a moment ago is answered from what was heard, with no query.
        let (again, _) = resolve([hidden], with: resolver)
        XCTAssertEqual(again, [hidden: IPAddress("10.61.0.2")!])
        XCTAssertEqual(responder.queriesAnswered.load(ordering: .relaxed), 1)
    }

    /// A responder on another link (the answer's source is not on the interface it came in
    /// on) is not believed (RFC 6762 §11).
    func testAnAnswerFromOffTheLinkIsIgnored() throws {
        let (ours, theirs) = try link()
        // The responder's address is on no subnet of ours: its answers come from 10.62.0.2.
        try theirs.batch("addr del 10.61.0.2/24 dev m1", "addr add 10.62.0.2/24 dev m1")
        let responder = try MulticastDNSResponder(names: [hidden: IPAddress("10.62.0.2")!], interface: "m1", in: theirs)
        cleanup.append { responder.stop() }
        let resolver = try ours.perform { MulticastDNSResolver() }
        cleanup.append { resolver.shutdown() }
        let (found, _) = resolve([hidden], with: resolver, timeout: .milliseconds(500))
        XCTAssertEqual(found, [:])
        XCTAssertGreaterThanOrEqual(responder.queriesAnswered.load(ordering: .relaxed), 1, "it did answer")
    }
}
