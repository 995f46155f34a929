import VoiceSIPTestVectors
import XCTest
@testable import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

final class RFC4475Tests: XCTestCase {
    let parser = SIPMessageParser()

    func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> SIPMessage {
        do { return try parser.parse(datagram: wire(text)) } catch {
            XCTFail("\(error)", file: file, line: line)
            throw error
        }
    }

    func testWsinv() throws {
        let m = try parse(RFC4475.wsinv)
        let r = try XCTUnwrap(m.request)
        XCTAssertEqual(r.method, .invite)
        XCTAssertEqual(r.uri.user, "vivekg")
        XCTAssertTrue(r.uri.parameters.contains("unknownparam"))
        XCTAssertEqual(try r.headers.to().tag, "1918181833n")
        XCTAssertEqual(try r.headers.from().displayName, #"J Rosenberg \""#)
        XCTAssertEqual(try r.headers.from().tag, "98asjd8")
        XCTAssertEqual(try r.headers.maxForwards(), 68)
        XCTAssertEqual(try r.headers.cseq(), SIPCSeq(sequence: 9, method: .invite))
        let vias = try r.headers.via()
        XCTAssertEqual(vias.map(\.host), ["192.0.2.2", "spindle.example.com", "192.168.255.111"])
        XCTAssertEqual(vias.map(\.transport), ["UDP", "TCP", "UDP"])
        XCTAssertEqual(vias.map(\.branch), ["390skdjuw", "z9hG4bK9ikj8", "z9hG4bK30239"])
        XCTAssertEqual(r.headers.first("subject"), "")
        XCTAssertEqual(r.headers.first("NewFangledHeader"), "newfangled value continued newfangled value")
        XCTAssertEqual(r.headers.first("UnknownHeaderWithUnusualValue"), ";;,,;;,;")
        guard case .addresses(let contacts)? = try r.headers.contact() else { return XCTFail("no contact") }
        XCTAssertEqual(contacts.first?.displayName, #"Quoted string """#)
        XCTAssertEqual(contacts.first?.parameters.value("newparam"), "newvalue")
        XCTAssertEqual(contacts.first?.qValueThousandths, 330)
        XCTAssertTrue(try r.headers.route()[0].uri.isLooseRouting)
        XCTAssertEqual(r.body.count, 150)
    }

    func testIntmeth() throws {
        let r = try XCTUnwrap(parse(RFC4475.intmeth).request)
        XCTAssertEqual(r.method.rawValue, "!interesting-Method0123456789_*+`.%indeed'~")
        XCTAssertNotEqual(r.method, .invite)
        XCTAssertEqual(r.uri.user, "1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*")
        XCTAssertEqual(r.uri.password, "&it+has=1,weird!*pas$wo~d_too.(doesn't-it)")
        XCTAssertEqual(try r.headers.to().displayName, "BEL:\u{07} NUL:\u{00} DEL:\u{7F}")
        XCTAssertEqual(try r.headers.from().displayName, "token1~` token2'+_ token3*%!.-")
        XCTAssertEqual(try r.headers.from().tag, "_token~1'+`*%!-.")
        XCTAssertEqual(try r.headers.callID(), #"intmeth.word%ZK-!.*_+'@word`~)(><:\/"][?}{"#)
        XCTAssertEqual(try r.headers.topVia().branch, "z9hG4bK-.!%66*_+`'~")
        XCTAssertEqual(r.headers.first("extensionHeader-!.%*+_`'~"), "\u{FEFF}大停電")
    }

    func testEsc01() throws {
        let r = try XCTUnwrap(parse(RFC4475.esc01).request)
        XCTAssertEqual(r.uri.user, "sips:user@example.com")
        XCTAssertEqual(r.uri.host, "example.net")
        XCTAssertEqual(try r.headers.to().uri.user, "user")
        XCTAssertEqual(try r.headers.from().uri.user, "I have spaces")
        guard case .addresses(let c)? = try r.headers.contact() else { return XCTFail() }
        XCTAssertEqual(c[0].uri.user, "caller")
        XCTAssertTrue(c[0].uri.isLooseRouting)
        XCTAssertEqual(c[0].uri.parameters.value("name"), "value%41")
        XCTAssertEqual(try r.headers.contentType(), .sdp)
        XCTAssertTrue(try r.headers.to().uri.isEquivalent(to: SIPURI(parsing: "sip:user@example.com")))
    }

    func testEscnull() throws {
        let r = try XCTUnwrap(parse(RFC4475.escnull).request)
        XCTAssertEqual(try r.headers.to().uri.user, "null-\u{00}-null")
        guard case .addresses(let c)? = try r.headers.contact() else { return XCTFail() }
        XCTAssertEqual(c.map(\.uri.user), ["\u{00}", "\u{00}\u{00}"])
    }

    func testEsc02() throws {
        let r = try XCTUnwrap(parse(RFC4475.esc02).request)
        XCTAssertEqual(r.method.rawValue, "RE%47IST%45R")
        XCTAssertNotEqual(r.method, .register)
        XCTAssertEqual(try r.headers.from().displayName, "%Z%45")
        guard case .addresses(let c)? = try r.headers.contact() else { return XCTFail() }
        XCTAssertEqual(c.count, 2, "C%6Fntact is an unknown header, not Contact")
        XCTAssertEqual(c.map(\.uri.user), ["alias1", "alias3"])
        XCTAssertEqual(r.headers.first("C%6Fntact"), "<sip:alias2@host2.example.com>")
        XCTAssertEqual(try r.headers.to().displayName, "%Z%45")
        XCTAssertEqual(try r.headers.topVia().branch, "z9hG4bK209%fzsnel234")
        XCTAssertEqual(try r.headers.cseq().method.rawValue, "RE%47IST%45R")
    }

    func testLwsdisp() throws {
        let r = try XCTUnwrap(parse(RFC4475.lwsdisp).request)
        XCTAssertEqual(try r.headers.from().displayName, "caller")
        XCTAssertEqual(try r.headers.from().uri.user, "caller")
    }

    func testLongreq() throws {
        let r = try XCTUnwrap(parse(RFC4475.longreq).request)
        XCTAssertEqual(try r.headers.to().displayName, "I have a user name of \(RFC4475.r("extreme", 10)) proportion")
        XCTAssertEqual(try r.headers.to().uri.port, 6000)
        XCTAssertEqual(try r.headers.from().tag, "12\(RFC4475.r("982", 50))424")
        XCTAssertEqual(try r.headers.callID(), "longreq.one\(RFC4475.r("really", 20))longcallid")
        let vias = try r.headers.via()
        XCTAssertEqual(vias.count, 34)
        XCTAssertEqual(vias.prefix(33).map(\.host), (1...33).reversed().map { "sip\($0).example.com" })
        XCTAssertEqual(vias.last?.branch, "very\(RFC4475.r("long", 50))branchvalue")
        XCTAssertEqual(r.headers.first("Unknown-\(RFC4475.r("Long", 20))-Name")?.hasPrefix("unknown-"), true)
        XCTAssertEqual(r.body.count, 150)
    }

    func testDblreqTakesOnlyTheFirstMessageOfADatagram() throws {
        let r = try XCTUnwrap(parse(RFC4475.dblreq).request)
        XCTAssertEqual(r.method, .register)
        XCTAssertEqual(try r.headers.callID(), "dblreq.0ha0isndaksdj99sdfafnl3lk233412")
        XCTAssertEqual(r.body, [])
    }

    func testSemiuri() throws {
        let r = try XCTUnwrap(parse(RFC4475.semiuri).request)
        XCTAssertEqual(r.uri.user, "user;par=u@example.net")
        XCTAssertEqual(r.uri.host, "example.com")
        XCTAssertTrue(r.uri.parameters.isEmpty)
        XCTAssertEqual(try r.headers.values("accept").count, 6)
    }

    func testTransports() throws {
        let r = try XCTUnwrap(parse(RFC4475.transports).request)
        XCTAssertEqual(try r.headers.via().map(\.transport), ["UDP", "SCTP", "TLS", "UNKNOWN", "TCP"])
        XCTAssertEqual(try r.headers.callID(), "transports.kijh4akdnaqjkwendsasfdj")
    }

    func testMpart01KeepsTheBinaryBodyWhole() throws {
        XCTAssertEqual(RFC4475.mpart01Binary.count, 342)
        XCTAssertTrue(RFC4475.mpart01Binary.contains(0x00))
        XCTAssertTrue(RFC4475.mpart01Binary.contains(0x0A))
        let r = try XCTUnwrap(parser.parse(datagram: RFC4475.mpart01).request)
        XCTAssertEqual(r.method.rawValue, "MESSAGE")
        XCTAssertEqual(try r.headers.callID(), "3d9485ad0c49859b@Zmx1ZmZ5LW1hYy0xNi5sb2NhbA..")
        XCTAssertEqual(r.body.count, 553, "the body is framed by Content-Length, not by its bare LF octets")
        XCTAssertEqual(Array(r.body.suffix(24)), wire("\n--7a9cbec02ceef655--\n").suffix(24).map { $0 })
        let binaryStart = r.body.count - RFC4475.mpart01Binary.count - wire("\n--7a9cbec02ceef655--\n").count
        XCTAssertEqual(Array(r.body[binaryStart..<(binaryStart + RFC4475.mpart01Binary.count)]), RFC4475.mpart01Binary)
    }

    func testUnreasonAndNoreason() throws {
        let a = try XCTUnwrap(parse(RFC4475.unreason).response)
        XCTAssertEqual(a.statusCode, 200)
        XCTAssertEqual(a.reasonPhrase, "= 2**3 * 5**2 но сто девяносто девять - простое")
        XCTAssertEqual(a.body.count, 154)
        let b = try XCTUnwrap(parse(RFC4475.noreason).response)
        XCTAssertEqual(b.statusCode, 100)
        XCTAssertEqual(b.reasonPhrase, "")
    }

    func testInvalidMessagesAreRejectedWithTypedErrors() {
        for vector in RFC4475.invalid {
            XCTAssertThrowsError(try parser.parse(datagram: wire(vector.text)), vector.name) { error in
                guard let e = error as? SIPParseError else { return XCTFail("untyped error for \(vector.name)") }
                XCTAssertEqual(e.kind, vector.kind, "\(vector.name): \(e)")
            }
        }
    }

    func testBadVersionAnswers505AndOthers400() throws {
        let bad = try XCTUnwrap(RFC4475.invalid.first { $0.name == "badvers" })
        XCTAssertThrowsError(try parser.parse(datagram: wire(bad.text))) { error in
            XCTAssertEqual((error as? SIPParseError)?.statusCode ?? 0, 505)
        }
        let mismatch = try XCTUnwrap(RFC4475.invalid.first { $0.name == "mismatch01" })
        XCTAssertThrowsError(try parser.parse(datagram: wire(mismatch.text))) { error in
            XCTAssertEqual((error as? SIPParseError)?.statusCode ?? 0, 400)
            XCTAssertTrue((error as? SIPParseError)?.reasonPhrase.hasPrefix("Bad Request") ?? false)
        }
    }

    func testSemanticVectorsParse() throws {
        // §3.2.1 badbranch, §3.3.2 unkscm, §3.3.4 unksm2, §3.3.10 bcast: syntactically valid.
        let badbranch = try XCTUnwrap(parse(RFC4475.badbranch).request)
        XCTAssertEqual(try badbranch.headers.topVia().branch, "z9hG4bK")
        XCTAssertFalse(try badbranch.headers.topVia().hasRFC3261Branch)
        let unkscm = try XCTUnwrap(parse(RFC4475.unkscm).request)
        XCTAssertEqual(unkscm.uri.scheme, .other("nobodyknowsthisscheme"))
        let unksm2 = try XCTUnwrap(parse(RFC4475.unksm2).request)
        XCTAssertEqual(try unksm2.headers.to().uri.scheme, .other("isbn"))
        XCTAssertEqual(try unksm2.headers.from().uri.scheme, .other("http"))
        let bcast = try XCTUnwrap(parse(RFC4475.bcast).response)
        XCTAssertEqual(try bcast.headers.via()[1].host, "255.255.255.255")
        XCTAssertEqual(bcast.body.count, 154)
    }
}
