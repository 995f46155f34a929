import VoiceAddress
import VoiceDNS
import XCTest

@testable import VoiceSIPAgent

/// RFC 3263 server location as a value, fed answers from memory.
final class SIPServerLocationTests: XCTestCase {
    /// A fixed sequence of draws, so weighted SRV order is reproducible.
    private struct Draws: RandomNumberGenerator {
        var state: UInt64 = 42
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    /// Runs `location` to the end, answering each lookup from `zone` (a missing question is
    /// NXDOMAIN); returns the targets or the error, and the questions asked in order.
    private func locate(
        _ location: SIPServerLocation, zone: [DNSQuestion: Result<DNSAnswer, DNSError>], random: inout Draws
    ) -> (result: Result<[SIPServerTarget], DNSError>?, asked: [DNSQuestion]) {
        var location = location
        var pending = location.start()
        var asked: [DNSQuestion] = []
        while !pending.isEmpty {
            let action = pending.removeFirst()
            switch action {
            case .lookup(let question):
                asked.append(question)
                let outcome = zone[question] ?? .failure(DNSError(.nameNotFound, "\(question)", negativeTTL: 60))
                pending += location.receive(outcome, for: question, using: &random)
            case .finished(let targets):
                return (.success(targets), asked)
            case .failed(let error):
                return (.failure(error), asked)
            }
        }
        return (nil, asked)
    }

    private func srv(_ name: String, _ records: [(UInt16, UInt16, UInt16, String)]) -> (DNSQuestion, Result<DNSAnswer, DNSError>) {
        let question = DNSQuestion(name, .srv)
        let data = records.map { DNSRecordData.srv(DNSServiceRecord(priority: $0.0, weight: $0.1, port: $0.2, target: $0.3)) }
        return (question, .success(DNSAnswer(question: question, records: data, ttl: 60)))
    }

    private func a(_ name: String, _ addresses: String...) -> (DNSQuestion, Result<DNSAnswer, DNSError>) {
        let question = DNSQuestion(name, .a)
        return (question, .success(DNSAnswer(question: question, records: addresses.map { .address(IPAddress($0)!) }, ttl: 60)))
    }

    private func naptr(_ name: String, _ records: [(UInt16, UInt16, String, String)]) -> (DNSQuestion, Result<DNSAnswer, DNSError>) {
        let question = DNSQuestion(name, .naptr)
        let data = records.map {
            DNSRecordData.naptr(DNSNamingPointer(order: $0.0, preference: $0.1, flags: "S", service: $0.2, regexp: "", replacement: $0.3))
        }
        return (question, .success(DNSAnswer(question: question, records: data, ttl: 60)))
    }

    func testNAPTRPicksTheTransportsAndSRVOrdersTheServers() throws {
        let zone = Dictionary(uniqueKeysWithValues: [
            naptr("example.test", [(20, 10, "SIP+D2U", "_sip._udp.example.test"), (10, 10, "SIPS+D2T", "_sips._tcp.example.test"), (5, 1, "SIP+D2W", "_sip._ws.example.test")]),
            srv("_sips._tcp.example.test", [(10, 0, 5061, "tls.example.test")]),
            srv("_sip._udp.example.test", [(20, 0, 5080, "backup.example.test"), (10, 0, 5060, "main.example.test")]),
            a("tls.example.test", "192.0.2.1"),
            a("main.example.test", "192.0.2.2"),
            a("backup.example.test", "192.0.2.3"),
        ])
        var random = Draws()
        let (result, asked) = locate(
            SIPServerLocation(.init(host: "Example.TEST"), preferredTransport: .udp), zone: zone, random: &random)
        let targets = try XCTUnwrap(result).get()
        XCTAssertEqual(targets.map(\.transport), [.tls, .udp, .udp])
        XCTAssertEqual(targets.map(\.address), ["192.0.2.1", "192.0.2.2", "192.0.2.3"])
        XCTAssertEqual(targets.map(\.port), [5061, 5060, 5080])
        XCTAssertEqual(Set(targets.map(\.serverName)), ["example.test"], "TLS checks the domain, not the SRV target (RFC 5922)")
        XCTAssertEqual(asked.first, DNSQuestion("example.test", .naptr))
        XCTAssertFalse(asked.contains(DNSQuestion("_sip._ws.example.test", .srv)), "a service this client does not speak is skipped")
    }

    func testWithoutNAPTREveryTransportsSRVIsAskedOwnTransportFirst() throws {
        let zone = Dictionary(uniqueKeysWithValues: [
            srv("_sip._tcp.example.test", [(10, 0, 5060, "tcp.example.test")]),
            srv("_sip._udp.example.test", [(10, 0, 5060, "udp.example.test")]),
            a("tcp.example.test", "192.0.2.5"),
            a("udp.example.test", "192.0.2.6"),
        ])
        var random = Draws()
        let (result, asked) = locate(SIPServerLocation(.init(host: "example.test"), preferredTransport: .udp), zone: zone, random: &random)
        XCTAssertEqual(try XCTUnwrap(result).get().map(\.transport), [.udp, .tcp])
        XCTAssertEqual(
            Array(asked.prefix(4)),
            [
                DNSQuestion("example.test", .naptr), DNSQuestion("_sip._udp.example.test", .srv), DNSQuestion("_sips._tcp.example.test", .srv),
                DNSQuestion("_sip._tcp.example.test", .srv),
            ])
    }

    func testANamedTransportAsksItsSRVOnlyAndAPortAsksTheAddressOnly() throws {
        let zone = Dictionary(uniqueKeysWithValues: [
            srv("_sip._tcp.example.test", [(10, 0, 5070, "tcp.example.test")]),
            a("tcp.example.test", "192.0.2.5"),
            a("example.test", "192.0.2.9"),
        ])
        var random = Draws()
        let (named, namedAsked) = locate(
            SIPServerLocation(.init(host: "example.test", transport: .tcp), preferredTransport: .udp), zone: zone, random: &random)
        XCTAssertEqual(try XCTUnwrap(named).get().map(\.port), [5070])
        XCTAssertEqual(namedAsked.first, DNSQuestion("_sip._tcp.example.test", .srv))
        let (ported, portedAsked) = locate(
            SIPServerLocation(.init(host: "example.test", port: 5099), preferredTransport: .udp), zone: zone, random: &random)
        XCTAssertEqual(try XCTUnwrap(ported).get(), [SIPServerTarget(transport: .udp, address: "192.0.2.9", port: 5099, host: "example.test", serverName: "example.test")])
        XCTAssertEqual(portedAsked, [DNSQuestion("example.test", .a)])
    }

    func testNoSRVFallsBackToTheDomainsAddressAtTheDefaultPort() throws {
        let zone = Dictionary(uniqueKeysWithValues: [a("example.test", "192.0.2.9")])
        var random = Draws()
        let (result, _) = locate(SIPServerLocation(.init(host: "example.test", secure: true), preferredTransport: .udp), zone: zone, random: &random)
        XCTAssertEqual(try XCTUnwrap(result).get().map { "\($0.transport.rawValue) \($0.port)" }, ["TLS 5061"])
    }

    func testAServiceNotOfferedDoesNotFallBack() {
        var zone = Dictionary(uniqueKeysWithValues: [a("example.test", "192.0.2.9")])
        zone[DNSQuestion("_sip._tcp.example.test", .srv)] = .failure(DNSError(.serviceNotOffered, "."))
        var random = Draws()
        let (result, _) = locate(SIPServerLocation(.init(host: "example.test", transport: .tcp), preferredTransport: .udp), zone: zone, random: &random)
        guard case .failure(let error)? = result else { return XCTFail("\(String(describing: result))") }
        XCTAssertEqual(error.kind, .serviceNotOffered)
    }

    func testANameWithNoRecordsFailsWithNoSuchName() {
        var random = Draws()
        let (result, asked) = locate(SIPServerLocation(.init(host: "nowhere.test"), preferredTransport: .udp), zone: [:], random: &random)
        guard case .failure(let error)? = result else { return XCTFail("\(String(describing: result))") }
        XCTAssertEqual(error.kind, .nameNotFound)
        XCTAssertEqual(asked.count, 5, "NAPTR, three SRV names, then A: no more")
    }

    func testATimeoutIsReportedOverNoSuchName() {
        var zone: [DNSQuestion: Result<DNSAnswer, DNSError>] = [:]
        zone[DNSQuestion("_sip._udp.slow.test", .srv)] = .failure(DNSError(.timeout, "slow"))
        var random = Draws()
        let (result, _) = locate(SIPServerLocation(.init(host: "slow.test"), preferredTransport: .udp), zone: zone, random: &random)
        guard case .failure(let error)? = result else { return XCTFail("\(String(describing: result))") }
        XCTAssertEqual(error.kind, .timeout)
    }

    func testAdditionalAddressesSaveTheLookup() throws {
        let question = DNSQuestion("_sip._udp.example.test", .srv)
        let answer = DNSAnswer(
            question: question, records: [.srv(DNSServiceRecord(priority: 1, weight: 1, port: 5060, target: "pbx.example.test"))], ttl: 60,
            additionals: [DNSResourceRecord(name: "pbx.example.test", ttl: 60, data: .address(IPAddress("192.0.2.44")!))])
        var random = Draws()
        let (result, asked) = locate(
            SIPServerLocation(.init(host: "example.test", transport: .udp), preferredTransport: .udp), zone: [question: .success(answer)],
            random: &random)
        XCTAssertEqual(try XCTUnwrap(result).get().map(\.address), ["192.0.2.44"])
        XCTAssertEqual(asked, [question])
    }

    func testANumericHostNeedsNoLookup() {
        var location = SIPServerLocation(.init(host: "192.0.2.7", transport: .tcp), preferredTransport: .udp)
        XCTAssertEqual(
            location.start(),
            [.finished([SIPServerTarget(transport: .tcp, address: "192.0.2.7", port: 5060, host: "192.0.2.7", serverName: nil)])])
    }

    /// RFC 2782: within a priority, each record is first about as often as its weight says.
    func testWeightsSpreadTheFirstChoice() {
        let records = [
            DNSServiceRecord(priority: 10, weight: 75, port: 1, target: "heavy.test"),
            DNSServiceRecord(priority: 10, weight: 25, port: 2, target: "light.test"),
            DNSServiceRecord(priority: 5, weight: 0, port: 3, target: "first.test"),
        ]
        var random = Draws()
        var heavyFirst = 0
        for _ in 0..<4_000 {
            let ordered = SIPServerLocation.ordered(records, using: &random)
            XCTAssertEqual(ordered.first?.target, "first.test")
            if ordered[1].target == "heavy.test" { heavyFirst += 1 }
        }
        XCTAssertEqual(Double(heavyFirst) / 4_000, 0.75, accuracy: 0.04)
    }
}
