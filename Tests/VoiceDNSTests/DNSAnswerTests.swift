import VoiceAddress
import VoiceSupport
import XCTest

@testable import VoiceDNS

final class DNSAnswerTests: XCTestCase {
    private let ip = IPAddress("192.0.2.10")!

    private func answer(_ message: DNSMessage, _ question: DNSQuestion) throws -> DNSAnswer {
        try DNSAnswer(DNSMessage(parsing: message.serialized()), for: question)
    }

    private func assertFails(
        _ message: DNSMessage, _ question: DNSQuestion, _ kind: DNSError.Kind, file: StaticString = #filePath, line: UInt = #line
    ) -> DNSError? {
        do {
            _ = try answer(message, question)
            XCTFail("no error", file: file, line: line)
            return nil
        } catch let error as DNSError {
            XCTAssertEqual(error.kind, kind, "\(error)", file: file, line: line)
            return error
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    func testACNAMEChainIsFollowedAndTheSmallestTTLKept() throws {
        let question = DNSQuestion("sip.example.com", .a)
        let message = DNSMessage(
            question: question,
            answers: [
                DNSResourceRecord(name: "sip.example.com", ttl: 300, data: .cname("edge.example.net")),
                DNSResourceRecord(name: "edge.example.net", ttl: 30, data: .cname("edge-1.example.net")),
                DNSResourceRecord(name: "edge-1.example.net", ttl: 120, data: .address(ip)),
            ])
        let found = try answer(message, question)
        XCTAssertEqual(found.records, [.address(ip)])
        XCTAssertEqual(found.ttl, 30)
    }

    func testALoopingCNAMEChainIsAnError() {
        let question = DNSQuestion("a.test", .a)
        let message = DNSMessage(
            question: question,
            answers: [
                DNSResourceRecord(name: "a.test", ttl: 5, data: .cname("b.test")),
                DNSResourceRecord(name: "b.test", ttl: 5, data: .cname("a.test")),
            ])
        _ = assertFails(message, question, .aliasLoop)
    }

    func testACNAMEChainLongerThanEightIsAnError() {
        let question = DNSQuestion("n0.test", .a)
        let chain = (0..<12).map { DNSResourceRecord(name: "n\($0).test", ttl: 5, data: .cname("n\($0 + 1).test")) }
        _ = assertFails(DNSMessage(question: question, answers: chain), question, .aliasLoop)
    }

    func testRecordsOnlyForAnotherNameAreAMismatch() {
        let question = DNSQuestion("pbx.example.com", .a)
        let message = DNSMessage(question: question, answers: [DNSResourceRecord(name: "evil.example.org", ttl: 5, data: .address(ip))])
        _ = assertFails(message, question, .nameMismatch)
    }

    func testRecordsForAnotherNameBesideOursAreIgnored() throws {
        let question = DNSQuestion("pbx.example.com", .a)
        let other = IPAddress("203.0.113.66")!
        let message = DNSMessage(
            question: question,
            answers: [
                DNSResourceRecord(name: "evil.example.org", ttl: 5, data: .address(other)),
                DNSResourceRecord(name: "pbx.example.com", ttl: 5, data: .address(ip)),
            ])
        XCTAssertEqual(try answer(message, question).records, [.address(ip)])
    }

    func testAnAnswerToAnotherQuestionIsAMismatch() {
        let message = DNSMessage(question: DNSQuestion("other.test", .a))
        _ = assertFails(message, DNSQuestion("pbx.test", .a), .nameMismatch)
        _ = assertFails(DNSMessage(question: DNSQuestion("pbx.test", .aaaa)), DNSQuestion("pbx.test", .a), .nameMismatch)
    }

    func testNXDOMAINAndNODATACarryTheSOAsNegativeTTL() {
        let question = DNSQuestion("none.example.com", .naptr)
        let soa = DNSResourceRecord(name: "example.com", ttl: 900, data: .soa(minimum: 60))
        let missing = assertFails(DNSMessage(responseCode: 3, question: question, authorities: [soa]), question, .nameNotFound)
        XCTAssertEqual(missing?.negativeTTL, 60)
        let empty = assertFails(DNSMessage(question: question, authorities: [soa]), question, .noRecords)
        XCTAssertEqual(empty?.negativeTTL, 60)
    }

    func testServerFailureAndTruncationAreErrorsWithoutATTL() {
        let question = DNSQuestion("a.test", .a)
        XCTAssertNil(assertFails(DNSMessage(responseCode: 2, question: question), question, .serverFailure)?.negativeTTL)
        XCTAssertNil(assertFails(DNSMessage(responseCode: 5, question: question), question, .serverFailure)?.negativeTTL)
        _ = assertFails(DNSMessage(isTruncated: true, question: question), question, .truncated)
        _ = assertFails(DNSMessage(isResponse: false, question: question), question, .malformed)
    }

    func testAnSRVTargetOfRootSaysTheServiceIsNotOffered() throws {
        let question = DNSQuestion("_sip._udp.example.com", .srv)
        let root = DNSResourceRecord(name: question.name, ttl: 60, data: .srv(DNSServiceRecord(priority: 0, weight: 0, port: 0, target: ".")))
        _ = assertFails(DNSMessage(question: question, answers: [root]), question, .serviceNotOffered)
        let real = DNSResourceRecord(
            name: question.name, ttl: 60, data: .srv(DNSServiceRecord(priority: 1, weight: 0, port: 5060, target: "pbx.example.com")))
        XCTAssertEqual(try answer(DNSMessage(question: question, answers: [root, real]), question).records, [real.data])
    }

    // MARK: - Cache

    func testTheCacheKeepsAnswersForTheirTTLAndNegativeOnesForTheSOAs() throws {
        var cache = DNSCache()
        let question = DNSQuestion("pbx.test", .a)
        let found = DNSAnswer(question: question, records: [.address(ip)], ttl: 30)
        cache.store(.success(found), for: question, now: .zero)
        XCTAssertEqual(cache.lookup(question, now: .seconds(29.9)), .answer(found))
        XCTAssertNil(cache.lookup(question, now: .seconds(30)))
        let missing = DNSQuestion("none.test", .srv)
        cache.store(.failure(DNSError(.nameNotFound, "none", negativeTTL: 10_000)), for: missing, now: .zero)
        XCTAssertNotNil(cache.lookup(missing, now: .seconds(299)))
        XCTAssertNil(cache.lookup(missing, now: .seconds(300)), "negative answers are kept 5 minutes at most")
        cache.store(.failure(DNSError(.timeout, "slow")), for: question, now: .seconds(40))
        XCTAssertNil(cache.lookup(question, now: .seconds(40)), "a timeout is not kept")
        cache.store(.success(DNSAnswer(question: question, records: [.address(ip)], ttl: 0)), for: question, now: .seconds(40))
        XCTAssertNil(cache.lookup(question, now: .seconds(40)), "TTL 0 is not kept")
    }

    func testAFullCacheDropsTheEntryThatExpiresFirst() {
        var cache = DNSCache(capacity: 2)
        let questions = ["a", "b", "c"].map { DNSQuestion("\($0).test", .a) }
        cache.store(.success(DNSAnswer(question: questions[0], records: [], ttl: 100)), for: questions[0], now: .zero)
        cache.store(.success(DNSAnswer(question: questions[1], records: [], ttl: 10)), for: questions[1], now: .zero)
        cache.store(.success(DNSAnswer(question: questions[2], records: [], ttl: 50)), for: questions[2], now: .zero)
        XCTAssertEqual(cache.count, 2)
        XCTAssertNil(cache.lookup(questions[1], now: .zero))
        XCTAssertNotNil(cache.lookup(questions[0], now: .zero))
        XCTAssertNotNil(cache.lookup(questions[2], now: .zero))
    }
}
