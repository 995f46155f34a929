import VoiceAddress
import VoiceICE
import VoiceMediaPath
import VoiceSupport
import XCTest

/// A keyed path whose host renumbers (make before break, ahead of the move's re-INVITE): the
/// media moves with the peer over the checks alone, keyed as before.
final class MediaPathMoveTests: XCTestCase {
    private func keyed(aBoundToWildcard: Bool = true) throws -> MediaPathHarness {
        let h = try MediaPathHarness(aBoundToWildcard: aBoundToWildcard)
        h.start()
        XCTAssertTrue(h.run(until: { h.bothKeyed }), "a: \(h.a.path.phase), b: \(h.b.path.phase)")
        h.run(until: { false }, limit: .seconds(2))
        return h
    }

    /// A (controlling) loses 10.0.0.1 and gains 10.0.0.9: both routes move to the new pair
    /// within a few steps, sent from the new address; the SRTP keys and the DTLS association
    /// stay (no new handshake, no new keys, no event), and the figures name the new pair.
    func testTheControllingSideMovesBothRoutesAndKeepsItsKeys() throws {
        let h = try keyed()
        let keys = try XCTUnwrap(h.a.keys)
        let (eventsA, eventsB) = (h.a.events.count, h.b.events.count)
        let old = try MediaPathHarness.address("10.0.0.1", 4_000)
        let new = try MediaPathHarness.address("10.0.0.9", 4_000)
        h.a.goneAddresses = [old]
        h.a.otherAddresses = [new]
        h.drive(h.a) { $0.localAddressesChanged([new.ip], now: h.now) }
        XCTAssertTrue(h.run(until: { h.b.routes.last?.destination == new }, limit: .milliseconds(30)), "b: \(h.b.routes)")
        XCTAssertEqual(h.a.routes.last?.source, new, "a sends from its new address")
        XCTAssertEqual(h.a.routes.last?.destination, h.b.address)
        XCTAssertEqual(h.a.keys, keys, "no new keys")
        XCTAssertEqual(h.b.keys?.remote, keys.local)
        XCTAssertEqual(h.a.events.count, eventsA, "no event: the call did not break")
        XCTAssertEqual(h.b.events.count, eventsB)
        XCTAssertEqual(h.a.path.figures.selectedPair?.local, new)
        XCTAssertEqual(h.b.path.figures.selectedPair?.remote, new)
        XCTAssertEqual(h.b.path.figures.selectedPair?.remoteKind, .peerReflexive)
        guard case .keyed = h.a.path.phase, case .keyed = h.b.path.phase else { return XCTFail("\(h.a.path.phase) \(h.b.path.phase)") }
        XCTAssertTrue(h.strays.isEmpty)
    }

    /// A socket bound to one address cannot send from another: nothing is checked or moved.
    func testASocketBoundToOneAddressDoesNothing() throws {
        let h = try keyed(aBoundToWildcard: false)
        let routes = (h.a.routes.count, h.b.routes.count)
        let new = try MediaPathHarness.address("10.0.0.9", 4_000)
        h.a.otherAddresses = [new]
        h.drive(h.a) { $0.localAddressesChanged([new.ip], now: h.now) }
        XCTAssertTrue(h.b.inbox.isEmpty, "no check")
        h.run(until: { false }, limit: .milliseconds(100))
        XCTAssertEqual(h.a.routes.count, routes.0)
        XCTAssertEqual(h.b.routes.count, routes.1)
    }
}
