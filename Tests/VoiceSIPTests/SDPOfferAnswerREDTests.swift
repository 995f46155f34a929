import VoiceMediaTypes
import VoiceSIPTestVectors
import XCTest

@testable import VoiceSIP

/// RFC 2198 redundancy around Opus (`red/48000/2`, fmtp `111/111`) in offers and answers: as
/// Chromium offers it, as we offer it, and what is not taken.
final class SDPOfferAnswerREDTests: XCTestCase {
    private func capabilities(_ address: String, port: UInt16, redundancy: Bool = true) -> SDPLocalCapabilities {
        var c = SDPLocalCapabilities(address: address, port: port, encryption: .unencrypted)
        c.redundancy = redundancy
        return c
    }

    private func parse(_ text: String) throws -> SDPSessionDescription { try SDPSessionDescription(parsing: text) }

    func testChromiumsREDIsAcceptedAfterOpus() throws {
        var bob = SDPOfferAnswer(
            capabilities: SDPLocalCapabilities(
                address: "203.0.113.5", port: 5000, encryption: .automatic(suites: [.aesCM128HmacSHA1_80]),
                ice: SDPICEParameters(usernameFragment: "bobUF", password: "bobUFPw0123456789abcdef+/xyz", options: [], candidates: []),
                dtlsFingerprint: SDPFingerprint(hashFunction: "sha-256", digest: Array(0..<32))))
        let (answer, media) = try bob.receiveOffer(try parse(WebRTCSDPSamples.chromiumOffer))
        XCTAssertEqual(media.payloadType, 111)
        XCTAssertEqual(media.redPayloadType, 63)
        let audio = try XCTUnwrap(answer.media.first)
        XCTAssertEqual(Array(audio.formats.prefix(2)), ["111", "63"], "Opus first: Chromium keeps sending plain Opus")
        XCTAssertEqual(audio.rtpMap(for: 63)?.value, "63 red/48000/2")
        XCTAssertEqual(audio.formatParameters(for: "63")?.value, "63 111/111")
        XCTAssertEqual(try parse(answer.text), answer)
    }

    func testOurOfferCarriesREDAndBothSidesAgree() throws {
        var alice = SDPOfferAnswer(capabilities: capabilities("192.0.2.10", port: 4000))
        var bob = SDPOfferAnswer(capabilities: capabilities("192.0.2.20", port: 5000))
        let offer = try parse(try alice.makeOffer().text)
        let audio = try XCTUnwrap(offer.media.first)
        XCTAssertEqual(audio.formats.first, "111", "Opus is preferred; RED is offered beside it")
        XCTAssertTrue(audio.formats.contains("63"))
        XCTAssertEqual(audio.formatParameters(for: "63")?.value, "63 111/111")
        let (answer, bobMedia) = try bob.receiveOffer(offer)
        XCTAssertEqual(bobMedia.redPayloadType, 63)
        let aliceMedia = try alice.receiveAnswer(try parse(answer.text))
        XCTAssertEqual(aliceMedia.redPayloadType, 63)
        XCTAssertEqual(aliceMedia.payloadType, 111)
    }

    func testNoREDWithoutOpusOrWhenTurnedOffOrWhenItWrapsAnotherCodec() throws {
        // Turned off on our side: not offered, and not taken from an offer.
        var plain = SDPOfferAnswer(capabilities: capabilities("192.0.2.10", port: 4000, redundancy: false))
        XCTAssertFalse(try plain.makeOffer().media[0].formats.contains("63"))
        var answerer = SDPOfferAnswer(capabilities: capabilities("192.0.2.20", port: 5000, redundancy: false))
        let withRED = try parse(
            [
                "v=0", "o=- 1 1 IN IP4 198.51.100.7", "s=-", "c=IN IP4 198.51.100.7", "t=0 0",
                "m=audio 30000 RTP/AVP 96 111", "a=rtpmap:96 red/48000/2", "a=fmtp:96 111/111", "a=rtpmap:111 opus/48000/2", "",
            ].joined(separator: "\r\n"))
        let (answer, media) = try answerer.receiveOffer(withRED)
        XCTAssertNil(media.redPayloadType)
        XCTAssertEqual(answer.media[0].formats, ["111"], "RED first in the offer does not make it the codec")

        // RED around G.711 when G.711 is chosen: not ours (we do RED around Opus only).
        var g711 = SDPOfferAnswer(capabilities: capabilities("192.0.2.20", port: 5000))
        let aroundPCMU = try parse(
            [
                "v=0", "o=- 1 1 IN IP4 198.51.100.7", "s=-", "c=IN IP4 198.51.100.7", "t=0 0",
                "m=audio 30000 RTP/AVP 0 98", "a=rtpmap:0 PCMU/8000", "a=rtpmap:98 red/8000", "a=fmtp:98 0/0", "",
            ].joined(separator: "\r\n"))
        XCTAssertNil(try g711.receiveOffer(aroundPCMU).media.redPayloadType)

        // RED whose blocks name another payload type than the chosen Opus: not taken.
        var other = SDPOfferAnswer(capabilities: capabilities("192.0.2.20", port: 5000))
        let mismatched = try parse(
            [
                "v=0", "o=- 1 1 IN IP4 198.51.100.7", "s=-", "c=IN IP4 198.51.100.7", "t=0 0",
                "m=audio 30000 RTP/AVP 111 63", "a=rtpmap:111 opus/48000/2", "a=rtpmap:63 red/48000/2", "a=fmtp:63 111/0", "",
            ].joined(separator: "\r\n"))
        let (mismatchAnswer, mismatchMedia) = try other.receiveOffer(mismatched)
        XCTAssertNil(mismatchMedia.redPayloadType)
        XCTAssertFalse(mismatchAnswer.media[0].formats.contains("63"))
    }

    /// RFC 3611 §5.1: our descriptions ask for VoIP Metrics, whose loss runs set our RED depth;
    /// each side sends them only where the other's description asked.
    func testVoIPMetricsAreAskedForAndSentOnlyWhereAsked() throws {
        var alice = SDPOfferAnswer(capabilities: capabilities("192.0.2.10", port: 4000))
        var bob = SDPOfferAnswer(capabilities: capabilities("192.0.2.20", port: 5000))
        let offer = try parse(try alice.makeOffer().text)
        XCTAssertTrue(try parse(offer.text).media[0].attributes.contains(SDPAttribute(name: "rtcp-xr", value: "voip-metrics")))
        let (answer, bobMedia) = try bob.receiveOffer(offer)
        XCTAssertTrue(bobMedia.peerWantsVoIPMetrics)
        XCTAssertTrue(try alice.receiveAnswer(try parse(answer.text)).peerWantsVoIPMetrics)
        // An answer that does not list them: none sent.
        var erin = SDPOfferAnswer(capabilities: capabilities("192.0.2.60", port: 4000))
        let erinOffer = try parse(try erin.makeOffer().text)
        var answerText = try bob.receiveOffer(erinOffer).answer.text
        answerText = answerText.replacingOccurrences(of: "a=rtcp-xr:voip-metrics\r\n", with: "")
        XCTAssertFalse(answerText.contains("rtcp-xr"))
        XCTAssertFalse(try erin.receiveAnswer(try parse(answerText)).peerWantsVoIPMetrics)

        // Chromium asks for none: we send none, and our answer adds none.
        var carol = SDPOfferAnswer(capabilities: capabilities("192.0.2.30", port: 6000))
        let fromChromium = try parse(WebRTCSDPSamples.chromiumOffer)
        XCTAssertFalse(fromChromium.media[0].listsXRFormat("voip-metrics"))
        let peerOffer = try parse(
            "v=0\r\no=- 1 1 IN IP4 192.0.2.40\r\ns=-\r\nc=IN IP4 192.0.2.40\r\nt=0 0\r\n"
                + "m=audio 7000 RTP/AVP 0\r\na=rtcp-xr:rcvr-rtt=all:10000 stat-summary=loss,jitt\r\n")
        XCTAssertFalse(peerOffer.media[0].listsXRFormat("voip-metrics"), "other XR formats are not VoIP Metrics")
        let (carolAnswer, carolMedia) = try carol.receiveOffer(peerOffer)
        XCTAssertFalse(carolMedia.peerWantsVoIPMetrics)
        XCTAssertFalse(carolAnswer.media[0].listsXRFormat("voip-metrics"))
        let asking = try parse(
            "v=0\r\no=- 1 1 IN IP4 192.0.2.40\r\ns=-\r\nc=IN IP4 192.0.2.40\r\nt=0 0\r\n"
                + "m=audio 7000 RTP/AVP 0\r\na=rtcp-xr:rcvr-rtt=all:10000 VoIP-Metrics\r\n")
        var dave = SDPOfferAnswer(capabilities: capabilities("192.0.2.50", port: 6000))
        let (daveAnswer, daveMedia) = try dave.receiveOffer(asking)
        XCTAssertTrue(daveMedia.peerWantsVoIPMetrics, "listed among others, in any case")
        XCTAssertTrue(daveAnswer.media[0].listsXRFormat("voip-metrics"))
    }

    func testAnAnswerWithoutREDLeavesItOff() throws {
        var alice = SDPOfferAnswer(capabilities: capabilities("192.0.2.10", port: 4000))
        var bob = SDPOfferAnswer(capabilities: capabilities("192.0.2.20", port: 5000, redundancy: false))
        let offer = try parse(try alice.makeOffer().text)
        let (answer, _) = try bob.receiveOffer(offer)
        XCTAssertNil(try alice.receiveAnswer(try parse(answer.text)).redPayloadType)
    }

    /// Asking for RED puts it first, in answers (Chromium then sends RED) and in offers; the
    /// side that reads it still picks Opus as the codec.
    func testAskingForREDListsItFirst() throws {
        var asking = capabilities("203.0.113.5", port: 5000)
        asking.requestsRedundancy = true
        asking.encryption = .automatic(suites: [.aesCM128HmacSHA1_80])
        asking.ice = SDPICEParameters(usernameFragment: "bobUF", password: "bobUFPw0123456789abcdef+/xyz", options: [], candidates: [])
        asking.dtlsFingerprint = SDPFingerprint(hashFunction: "sha-256", digest: Array(0..<32))
        var bob = SDPOfferAnswer(capabilities: asking)
        let (answer, media) = try bob.receiveOffer(try parse(WebRTCSDPSamples.chromiumOffer))
        XCTAssertEqual(Array(try XCTUnwrap(answer.media.first).formats.prefix(2)), ["63", "111"])
        XCTAssertEqual(media.payloadType, 111)
        XCTAssertEqual(media.redPayloadType, 63)

        var alice = SDPOfferAnswer(capabilities: { var c = capabilities("192.0.2.10", port: 4000); c.requestsRedundancy = true; return c }())
        var carol = SDPOfferAnswer(capabilities: capabilities("192.0.2.20", port: 5000))
        let offer = try parse(try alice.makeOffer().text)
        XCTAssertEqual(offer.media.first?.formats.first, "63")
        let (reply, carolMedia) = try carol.receiveOffer(offer)
        XCTAssertEqual(carolMedia.payloadType, 111, "RED is not a codec of its own")
        XCTAssertEqual(carolMedia.redPayloadType, 63)
        XCTAssertEqual(try alice.receiveAnswer(try parse(reply.text)).payloadType, 111)
    }

    /// The peer's bandwidth for the whole stream: `b=TIAS` in bits, else `b=AS` in kilobits
    /// less packet headers; media level before session level; nonsense ignored.
    func testThePeersBandwidthLimitComesFromTIASOrAS() throws {
        func limit(_ lines: String, session: String = "") throws -> Int? {
            var bob = SDPOfferAnswer(capabilities: capabilities("192.0.2.20", port: 5000))
            let text = "v=0\r\no=- 1 1 IN IP4 192.0.2.10\r\ns=-\r\nc=IN IP4 192.0.2.10\r\n\(session)t=0 0\r\n"
                + "m=audio 4000 RTP/AVP 111\r\n\(lines)a=rtpmap:111 opus/48000/2\r\na=fmtp:111 maxaveragebitrate=40000\r\n"
            return try bob.receiveOffer(try parse(text)).media.peerBandwidthLimit
        }
        XCTAssertNil(try limit(""), "none stated")
        XCTAssertEqual(try limit("b=TIAS:96000\r\n"), 96_000)
        XCTAssertEqual(try limit("b=AS:100\r\n"), 100_000 - 16_000, "less 40 bytes a packet at 50 packets a second")
        XCTAssertEqual(try limit("b=AS:100\r\nb=TIAS:64000\r\n"), 64_000, "TIAS is the payload figure")
        XCTAssertEqual(try limit("", session: "b=AS:200\r\n"), 184_000)
        XCTAssertEqual(try limit("b=TIAS:50000\r\n", session: "b=AS:200\r\n"), 50_000, "the media line first")
        XCTAssertNil(try limit("b=AS:0\r\n"), "a zero would silence the stream: ignored")
        XCTAssertEqual(try limit("b=AS:999999999999\r\n"), 10_000_000_000 - 16_000, "a huge one is clamped, not overflowed")
        var bob = SDPOfferAnswer(capabilities: capabilities("192.0.2.20", port: 5000))
        let offer = "v=0\r\no=- 1 1 IN IP4 192.0.2.10\r\ns=-\r\nc=IN IP4 192.0.2.10\r\nt=0 0\r\nm=audio 4000 RTP/AVP 111\r\n"
            + "a=rtpmap:111 opus/48000/2\r\na=fmtp:111 maxaveragebitrate=40000\r\n"
        guard case .opus(let settings) = try bob.receiveOffer(try parse(offer)).media.codec else { return XCTFail("Opus") }
        XCTAssertEqual(settings.maxAverageBitrate, 40_000, "the Opus cap stays the encoder's, apart from the stream's limit")
    }
}
