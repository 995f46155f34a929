import VoiceAddress
import VoiceSupport
import XCTest

@testable import VoiceDNS

/// One resolution of a peer's `.local` names, in virtual time: the queries it sends, the one
/// retransmission, the answers it takes (a browser's, anyone's on the link), and its end.
final class MulticastDNSLookupTests: XCTestCase {
    private let browser = MulticastDNSMessageTests.name
    private let other = "0a1b2c3d-0000-4000-8000-00000000beef.local"

    /// A browser's answer: the address, and an NSEC beside it.
    private func answer(_ name: String, _ address: [UInt8], ttl: UInt32 = 120) -> MulticastDNSResponse {
        MulticastDNSResponse(records: [
            DNSResourceRecord(name: name, ttl: ttl, data: .address(IPAddress(bytes: address)!)),
            DNSResourceRecord(name: name, ttl: ttl, data: .other(DNSRecordType(rawValue: 47))),
        ])
    }

    func testOnlyOneLabelNamesUnderLocalAreAsked() {
        XCTAssertTrue(MulticastDNSLookup.isResolvable(browser))
        XCTAssertTrue(MulticastDNSLookup.isResolvable(browser.uppercased() + "."))
        for bad in ["example.com", "a.b.local", ".local", "local", "x_y.local", "192.168.1.2", String(repeating: "a", count: 64) + ".local", "ü.local"] {
            XCTAssertFalse(MulticastDNSLookup.isResolvable(bad), bad)
        }
    }

    func testItAsksEachNameOnceForAnyAndFinishesWhenAllAnswered() {
        var lookup = MulticastDNSLookup(names: [browser, other, browser.uppercased(), "host.example.com"], now: .zero, timeout: .seconds(1))
        XCTAssertEqual(lookup.names, [browser, other])
        let sent = lookup.start()
        XCTAssertEqual(sent, [.send(MulticastDNSResponse.query(for: browser, type: .any)), .send(MulticastDNSResponse.query(for: other, type: .any))])
        XCTAssertEqual(Array(MulticastDNSResponse.query(for: browser, type: .any).suffix(4)), [0, 255, 0, 1], "QTYPE ANY, QCLASS IN without the QU bit")
        XCTAssertEqual(lookup.received(answer(browser, [10, 0, 0, 2])), [])
        XCTAssertEqual(lookup.received(answer("unrelated.local", [10, 0, 0, 9])), [])
        XCTAssertEqual(
            lookup.received(answer(other, [0xFD] + [UInt8](repeating: 0, count: 14) + [7])),
            [.finished([browser: IPAddress("10.0.0.2")!, other: IPAddress("fd00::7")!])])
        XCTAssertEqual(lookup.phase, .finished)
        XCTAssertEqual(lookup.tick(now: .seconds(5)), [], "nothing after the end")
    }

    func testAnUnansweredNameIsAskedOnceMoreThenGivenUpAtTheDeadline() {
        var lookup = MulticastDNSLookup(names: [browser, other], now: .zero, timeout: .seconds(1))
        _ = lookup.start()
        _ = lookup.received(answer(browser, [10, 0, 0, 2]))
        XCTAssertEqual(lookup.nextDeadline, .milliseconds(250))
        XCTAssertEqual(lookup.tick(now: .milliseconds(200)), [])
        XCTAssertEqual(lookup.tick(now: .milliseconds(250)), [.send(MulticastDNSResponse.query(for: other, type: .any))], "only the one not answered")
        XCTAssertEqual(lookup.tick(now: .milliseconds(600)), [], "one retransmission only")
        XCTAssertEqual(lookup.nextDeadline, .seconds(1))
        XCTAssertEqual(lookup.tick(now: .seconds(1)), [.finished([browser: IPAddress("10.0.0.2")!])])
    }

    func testAGoodbyeAndAnAnswerForAnotherNameResolveNothing() {
        var lookup = MulticastDNSLookup(names: [browser], now: .zero, timeout: .milliseconds(500))
        _ = lookup.start()
        XCTAssertEqual(lookup.received(answer(browser, [10, 0, 0, 2], ttl: 0)), [])
        XCTAssertEqual(lookup.tick(now: .milliseconds(500)), [.finished([:])])
    }

    func testIPv4IsTakenWhenANameHasBothFamilies() {
        var lookup = MulticastDNSLookup(names: [browser], now: .zero, timeout: .seconds(1))
        _ = lookup.start()
        var both = answer(browser, [0xFD] + [UInt8](repeating: 0, count: 14) + [7])
        both.records += answer(browser, [10, 0, 0, 2]).records
        XCTAssertEqual(lookup.received(both), [.finished([browser: IPAddress("10.0.0.2")!])])
    }

    func testNamesHeardBeforeAndStillFreshNeedNoQuery() {
        var cache = MulticastDNSCache()
        cache.learn(answer(browser, [10, 0, 0, 2], ttl: 120), at: .zero)
        cache.learn(answer("not-a-candidate.example.com", [10, 0, 0, 3]), at: .zero)
        XCTAssertEqual(cache.fresh(at: .seconds(119)), [browser: IPAddress("10.0.0.2")!])
        XCTAssertEqual(cache.fresh(at: .seconds(120)), [:], "gone at its TTL")
        var lookup = MulticastDNSLookup(names: [browser], now: .seconds(10), timeout: .seconds(1))
        XCTAssertEqual(lookup.start(known: cache.fresh(at: .seconds(10))), [.finished([browser: IPAddress("10.0.0.2")!])])
        cache.learn(answer(browser, [10, 0, 0, 2], ttl: 0), at: .seconds(11))
        XCTAssertEqual(cache.fresh(at: .seconds(11)), [:], "a goodbye removes it")
    }

    func testTheCacheKeepsAtMostItsLimitAndCapsLongTTLs() {
        var cache = MulticastDNSCache()
        for index in 0..<(MulticastDNSCache.maximumEntries + 10) {
            cache.learn(answer("n\(index).local", [10, 0, UInt8(index / 256), UInt8(index % 256)], ttl: 1_000), at: .milliseconds(Int64(index)))
        }
        let now = MediaTime.milliseconds(100)
        XCTAssertEqual(cache.fresh(at: now).count, MulticastDNSCache.maximumEntries)
        XCTAssertNil(cache.fresh(at: now)["n0.local"], "the soonest to expire went")
        XCTAssertNotNil(cache.fresh(at: now)["n73.local"])
        XCTAssertEqual(cache.fresh(at: .seconds(121)).count, 0, "no entry outlives 120 s")
    }

    func testAtMostEightNamesAreAsked() {
        let names = (0..<20).map { "n\($0).local" }
        var lookup = MulticastDNSLookup(names: names, now: .zero, timeout: .seconds(1))
        XCTAssertEqual(lookup.start().count, MulticastDNSLookup.maximumNames)
    }
}
