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

    func testAnAnswerWithoutREDLeavesItOff() throws {
        var alice = SDPOfferAnswer(capabilities: capabilities("192.0.2.10", port: 4000))
        var bob = SDPOfferAnswer(capabilities: capabilities("192.0.2.20", port: 5000, redundancy: false))
        let offer = try parse(try alice.makeOffer().text)
        let (answer, _) = try bob.receiveOffer(offer)
        XCTAssertNil(try alice.receiveAnswer(try parse(answer.text)).redPayloadType)
    }
}
