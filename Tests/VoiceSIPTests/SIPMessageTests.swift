import VoiceTestAudio
import VoiceSIPTestVectors
import XCTest
@testable import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

final class SIPMessageTests: XCTestCase {
    func makeInvite() throws -> SIPRequest {
        var h = SIPHeaders()
        h.add("Via", SIPVia(transport: "udp", host: "192.0.2.1", port: 5060, branch: "z9hG4bKabc").description + ";rport")
        h.add("Max-Forwards", "70")
        h.add("From", "\"A \\\"q\\\"\" <sip:a@example.com>;tag=1")
        h.add("To", "<sip:b@example.com>")
        h.add("Call-ID", "abc@192.0.2.1")
        h.add("CSeq", "1 INVITE")
        h.add("Content-Type", "application/sdp")
        return SIPRequest(method: .invite, uri: try SIPURI(parsing: "sip:b@example.com"), headers: h, body: Array("v=0\r\n".utf8))
    }

    func testSerializeParseRoundTrip() throws {
        let request = try makeInvite()
        let bytes = request.serialized()
        XCTAssertTrue(
            String(decoding: bytes, as: UTF8.self).hasPrefix(
                "INVITE sip:b@example.com SIP/2.0\r\nVia: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKabc;rport\r\n"))
        let parsed = try XCTUnwrap(SIPMessageParser().parse(datagram: bytes).request)
        XCTAssertEqual(parsed.body, request.body)
        XCTAssertEqual(try parsed.headers.contentLength(), 5)
        XCTAssertEqual(try parsed.headers.from().displayName, "A \"q\"")
        XCTAssertTrue(try parsed.headers.topVia().hasRport)
        XCTAssertEqual(try SIPNameAddress(parsing: try parsed.headers.from().description), try parsed.headers.from())
    }

    func testCompactFormsAndCaseInsensitiveNames() {
        let h = SIPHeaders([("v", "a"), ("VIA", "b"), ("i", "c"), ("m", "d"), ("l", "0")])
        XCTAssertEqual(h["Via"], ["a", "b"])
        XCTAssertEqual(h.first("call-ID"), "c")
        XCTAssertEqual(h.first("Contact"), "d")
        XCTAssertEqual(h.first("content-length"), "0")
    }

    func testListSplittingIgnoresCommasInQuotesAndBrackets() throws {
        XCTAssertEqual(try SIPHeaders.splitList(#""a, b" <sip:x@y;p=1,2>, <sip:z@w>"#), [#""a, b" <sip:x@y;p=1,2>"#, "<sip:z@w>"])
        XCTAssertThrowsError(try SIPHeaders.splitList("a,,b"))
        XCTAssertThrowsError(try SIPHeaders.splitList(#""unterminated, x"#))
    }

    func testContactWildcardAndExpires() throws {
        XCTAssertEqual(try SIPHeaders([("Contact", "*")]).contact(), .wildcard)
        XCTAssertThrowsError(try SIPHeaders([("Contact", "*, <sip:a@b>")]).contact())
        guard case .addresses(let a)? = try SIPHeaders([("m", "<sip:a@b>;expires=3600;q=0.7")]).contact() else { return XCTFail() }
        XCTAssertEqual(a[0].expires, 3600)
        XCTAssertEqual(a[0].qValueThousandths, 700)
    }

    func testStreamFramerSplitsByContentLengthAndSkipsKeepAlives() throws {
        let one = try makeInvite().serialized()
        var framer = SIPStreamFramer()
        framer.append(Array("\r\n\r\n".utf8))
        XCTAssertEqual(try framer.next(), .keepAlivePing)
        framer.append(Array("\r\n".utf8))
        XCTAssertEqual(try framer.next(), .keepAlivePong)
        XCTAssertNil(try framer.next())
        var stream = one + one
        // Feed in small pieces: nothing is produced until a message is complete.
        var frames: [SIPStreamFramer.Frame] = []
        while !stream.isEmpty {
            framer.append(stream.prefix(7))
            stream.removeFirst(min(7, stream.count))
            while let f = try framer.next() { frames.append(f) }
        }
        XCTAssertEqual(frames.count, 2)
        XCTAssertEqual(framer.bufferedByteCount, 0)
    }

    /// A message arriving a byte at a time (a slow-loris, or a fuzzer's small reads) is parsed
    /// when its header section and when its body are complete, not once per byte: linear work,
    /// not quadratic.
    func testStreamFramerParsesAHeaderSectionOnceHoweverItArrives() throws {
        var invite = try makeInvite()
        invite.body = [UInt8](repeating: 0x61, count: 20_000)
        let bytes = invite.serialized()
        var framer = SIPStreamFramer()
        var frames = 0
        for byte in bytes {
            framer.append([byte])
            while let frame = try framer.next() {
                if case .message = frame { frames += 1 }
            }
        }
        XCTAssertEqual(frames, 1)
        XCTAssertEqual(framer.headParses, 2, "\(bytes.count) single-byte reads: parsed when the headers are in, and when the body is")
        for byte in bytes + bytes { framer.append([byte]); while try framer.next() != nil {} }
        XCTAssertEqual(framer.headParses, 6)
    }

    func testStreamFramerHandsOutAFramedMessageThatDoesNotValidateAndGoesOn() throws {
        let bad = wire(
            "OPTIONS sip:a@b SIP/2.0\nVia: SIP/2.0/TCP h;branch=z9hG4bKx\nFrom: <sip:a@b>;tag=1\nTo: <sip:a@b>\nCall-ID: x\nCSeq: one OPTIONS\nContent-Length: 0\n\n")
        let good = try makeInvite().serialized()
        var framer = SIPStreamFramer()
        framer.append(bad + good)
        guard case .malformed(let error, let bytes)? = try framer.next() else { return XCTFail("no malformed frame") }
        XCTAssertEqual(bytes, bad, "exactly the bad message, for its 400")
        XCTAssertNotEqual(error.kind, .truncated)
        guard case .message(let message)? = try framer.next() else { return XCTFail("the stream did not go on") }
        XCTAssertEqual(message.request?.method, .invite)
        XCTAssertEqual(framer.bufferedByteCount, 0)
    }

    func testStreamFramerRequiresContentLengthAndLimitsSize() {
        var framer = SIPStreamFramer()
        framer.append(
            wire(
                "OPTIONS sip:a@b SIP/2.0\nVia: SIP/2.0/TCP h;branch=z9hG4bKx\nFrom: <sip:a@b>;tag=1\nTo: <sip:a@b>\nCall-ID: x\nCSeq: 1 OPTIONS\n\n"
            ))
        XCTAssertThrowsError(try framer.next()) { XCTAssertEqual(($0 as? SIPParseError)?.kind, .invalidContentLength) }
        var big = SIPStreamFramer(parser: SIPMessageParser(limits: .init(maximumHeaderSize: 64)))
        big.append([UInt8](repeating: 0x41, count: 200))
        XCTAssertThrowsError(try big.next()) { XCTAssertEqual(($0 as? SIPParseError)?.kind, .tooLarge) }
    }

    func testRandomGarbageAndTruncationNeverCrash() throws {
        var rng = SeededGenerator(seed: 0x5EED)
        let parser = SIPMessageParser()
        let valid = wire(RFC4475.wsinv)
        for cut in stride(from: 0, to: valid.count, by: 3) {
            _ = try? parser.parse(datagram: Array(valid.prefix(cut)))
        }
        let alphabet = Array("SIP/2.0 INVITE sip:@;=,<>\"\\:\r\n \t%[]0123456789abcz".utf8)
        for _ in 0..<3000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[i] = Bool.random(using: &rng) ? UInt8.random(in: 0...255, using: &rng) : alphabet.randomElement(using: &rng) ?? 0
            }
            _ = try? parser.parse(datagram: bytes)
            var framer = SIPStreamFramer()
            framer.append(bytes)
            _ = try? framer.next()
            let garbage = (0..<Int.random(in: 0...300, using: &rng)).map { _ in alphabet.randomElement(using: &rng) ?? 0 }
            _ = try? parser.parse(datagram: garbage)
            _ = try? SIPURI(parsing: String(decoding: garbage, as: UTF8.self))
        }
    }
}

/// SplitMix64, for reproducible fuzz inputs.
typealias SeededGenerator = SplitMix64
