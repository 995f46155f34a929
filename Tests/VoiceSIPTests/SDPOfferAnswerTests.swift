import VoiceMediaTypes
import VoiceSupport
import XCTest
@testable import VoiceSIP

/// A deterministic generator (SplitMix64) so keys and session ids repeat from run to run.
private struct SDPTestGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

final class SDPOfferAnswerTests: XCTestCase {
    private let suites: [SRTPSuite] = [.aesCM128HmacSHA1_80, .aesCM128HmacSHA1_32]
    private let key80 = "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR"
    private var generator = SDPTestGenerator(state: 1)

    private func capabilities(
        _ address: String = "192.0.2.10", port: UInt16 = 4000,
        codecs: [MediaCodec] = [.opus(.voice), .pcmu, .pcma],
        encryption: SDPEncryptionPolicy? = nil
    ) -> SDPLocalCapabilities {
        SDPLocalCapabilities(address: address, port: port, codecs: codecs, encryption: encryption ?? .srtp(suites: suites))
    }

    private func parse(_ lines: [String]) throws -> SDPSessionDescription {
        try SDPSessionDescription(parsing: lines.map { $0 + "\r\n" }.joined())
    }

    private func remoteOffer(
        proto: String = "RTP/SAVP", formats: String, maps: [String], extra: [String] = [],
        crypto: [String]? = nil, more: [String] = []
    ) throws -> SDPSessionDescription {
        let cryptoLines = crypto ?? ["a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key80)"]
        return try parse(
            [
                "v=0", "o=- 10 10 IN IP4 198.51.100.7", "s=-", "c=IN IP4 198.51.100.7", "t=0 0",
                "m=audio 30000 \(proto) \(formats)",
            ] + maps + extra
                + (proto == "RTP/SAVP" ? cryptoLines : []) + more)
    }

    // MARK: Offers

    func testOfferListsCodecsTelephoneEventsCryptoAndMux() throws {
        var negotiation = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        let offer = try negotiation.makeOffer(using: &generator)
        let audio = try XCTUnwrap(offer.media.first)
        XCTAssertEqual(audio.mediaLineValue, "audio 4000 RTP/SAVP 111 0 8 63 110 101")
        XCTAssertEqual(audio.rtpMap(for: 63)?.value, "63 red/48000/2")
        XCTAssertEqual(audio.formatParameters(for: "63")?.parameters, "111/111")
        XCTAssertEqual(audio.rtpMap(for: 111)?.value, "111 opus/48000/2")
        XCTAssertEqual(
            audio.formatParameters(for: "111")?.parameters,
            "useinbandfec=1;usedtx=0;maxaveragebitrate=80000;stereo=0")
        XCTAssertEqual(audio.rtpMap(for: 110)?.value, "110 telephone-event/48000")
        XCTAssertEqual(audio.rtpMap(for: 101)?.value, "101 telephone-event/8000")
        XCTAssertEqual(audio.ptime, 20)
        XCTAssertTrue(audio.rtcpMux)
        XCTAssertEqual(audio.directionAttribute, .sendrecv)
        XCTAssertEqual(audio.cryptoAttributes.map(\.suite), suites)
        XCTAssertEqual(audio.cryptoAttributes.map(\.tag), [1, 2])
        XCTAssertEqual(offer.connection, SDPConnection(address: "192.0.2.10"))
        // The text parses back to the same description.
        XCTAssertEqual(try SDPSessionDescription(parsing: offer.text), offer)
        XCTAssertThrowsError(try negotiation.makeOffer(using: &generator)) {
            XCTAssertEqual($0 as? SDPNegotiationError, .offerPending)
        }
    }

    func testFreshKeysPerSession() throws {
        var a = SDPOfferAnswer(capabilities: capabilities())
        var b = SDPOfferAnswer(capabilities: capabilities())
        let keyA = try XCTUnwrap(a.makeOffer().media[0].cryptoAttributes.first?.keyMaterial)
        let keyB = try XCTUnwrap(b.makeOffer().media[0].cryptoAttributes.first?.keyMaterial)
        XCTAssertNotEqual(keyA, keyB)
        XCTAssertNotEqual(a.origin.sessionID, b.origin.sessionID)
    }

    func testUnencryptedOfferOnlyWhenOptedIn() throws {
        var negotiation = SDPOfferAnswer(capabilities: capabilities(encryption: .unencrypted), using: &generator)
        let audio = try negotiation.makeOffer(using: &generator).media[0]
        XCTAssertEqual(audio.proto, "RTP/AVP")
        XCTAssertFalse(audio.hasAttribute("crypto"))
        XCTAssertEqual(SDPLocalCapabilities(address: "192.0.2.1", port: 1).encryption, .required)
    }

    // MARK: Full exchange between two instances

    func testOfferAnswerBetweenTwoEndpointsAgreesOnKeysAndAddresses() throws {
        let modest = OpusSettings(bitrate: 32_000, maxAverageBitrate: 40_000)
        var alice = SDPOfferAnswer(capabilities: capabilities(codecs: [.opus(modest), .pcmu, .pcma]), using: &generator)
        var bob = SDPOfferAnswer(
            capabilities: capabilities("203.0.113.5", port: 5000, codecs: [.pcmu, .opus(.highQuality)]),
            using: &generator)
        let offer = try SDPSessionDescription(parsing: alice.makeOffer(using: &generator).text)
        let (answer, bobMedia) = try bob.receiveOffer(offer, using: &generator)
        let aliceMedia = try alice.receiveAnswer(SDPSessionDescription(parsing: answer.text))
        // Offerer's order wins: Opus.
        XCTAssertEqual(bobMedia.payloadType, 111)
        XCTAssertEqual(aliceMedia.payloadType, 111)
        guard case let .opus(settings) = bobMedia.codec else { return XCTFail("expected opus, got \(bobMedia.codec)") }
        XCTAssertEqual(settings.bitrate, 40_000, "capped by the offer's maxaveragebitrate")
        XCTAssertEqual(settings.maxAverageBitrate, 40_000, "so is the bitrate FEC may raise it to")
        XCTAssertTrue(offer.text.contains("maxaveragebitrate=40000"), "the offer announces the maximum, not the clean bitrate")
        XCTAssertEqual(bobMedia.telephoneEventPayloadType, 110)
        XCTAssertEqual(aliceMedia.telephoneEventPayloadType, 110)
        XCTAssertEqual(aliceMedia.remoteRTP, SDPTransportAddress(host: "203.0.113.5", port: 5000))
        XCTAssertEqual(bobMedia.remoteRTP, SDPTransportAddress(host: "192.0.2.10", port: 4000))
        XCTAssertTrue(aliceMedia.rtcpMux)
        XCTAssertEqual(aliceMedia.remoteRTCP, aliceMedia.remoteRTP)
        XCTAssertEqual(aliceMedia.localKey, bobMedia.remoteKey)
        XCTAssertEqual(aliceMedia.remoteKey, bobMedia.localKey)
        XCTAssertNotNil(aliceMedia.localKey)
        XCTAssertEqual(aliceMedia.localKey?.suite, .aesCM128HmacSHA1_80)
        XCTAssertEqual(aliceMedia.direction, .sendrecv)
        XCTAssertEqual(bobMedia.direction, .sendrecv)
        XCTAssertEqual(alice.state, .stable(aliceMedia))
        guard case .srtp = aliceMedia.encryption else { return XCTFail("expected SRTP") }
        // The answer carries only the chosen codec, RED around it, and its telephone-event.
        XCTAssertEqual(answer.media[0].formats, ["111", "63", "110"])
        XCTAssertEqual(answer.media[0].cryptoAttributes.map(\.tag), [1])
    }

    func testHoldAndResumeReOffersBumpVersionAndKeepKeys() throws {
        var alice = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        var bob = SDPOfferAnswer(capabilities: capabilities("203.0.113.5", port: 5000), using: &generator)
        let first = try alice.makeOffer(using: &generator)
        let (answer1, _) = try bob.receiveOffer(first, using: &generator)
        let initial = try alice.receiveAnswer(answer1)

        let hold = try alice.makeHoldOffer()
        XCTAssertEqual(hold.media[0].directionAttribute, .sendonly)
        XCTAssertEqual(hold.origin.sessionVersion, first.origin.sessionVersion + 1)
        XCTAssertEqual(hold.origin.sessionID, first.origin.sessionID)
        XCTAssertEqual(hold.media[0].cryptoAttributes, [SDESCryptoAttribute(tag: 1, keyMaterial: try XCTUnwrap(initial.localKey))])
        XCTAssertEqual(alice.negotiated, initial, "old media stays in force until the answer")
        let (holdAnswer, bobHeld) = try bob.receiveOffer(hold, using: &generator)
        XCTAssertEqual(holdAnswer.media[0].directionAttribute, .recvonly)
        XCTAssertEqual(bobHeld.direction, .recvonly)
        XCTAssertEqual(bobHeld.remoteKey, initial.localKey)
        XCTAssertEqual(bobHeld.localKey, initial.remoteKey, "answerer keeps its key across re-offers")
        XCTAssertEqual(try alice.receiveAnswer(holdAnswer).direction, .sendonly)

        let resume = try alice.makeResumeOffer()
        XCTAssertEqual(resume.media[0].directionAttribute, .sendrecv)
        XCTAssertEqual(resume.origin.sessionVersion, hold.origin.sessionVersion + 1)
        let (resumeAnswer, _) = try bob.receiveOffer(resume, using: &generator)
        XCTAssertEqual(try alice.receiveAnswer(resumeAnswer).direction, .sendrecv)
        // An unchanged answer keeps its version (RFC 3264 §8).
        XCTAssertEqual(resumeAnswer.origin.sessionVersion, answer1.origin.sessionVersion + 2)
    }

    func testMovingTheLocalAddressChangesCAndOButKeepsKeysAndSession() throws {
        var alice = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        var bob = SDPOfferAnswer(capabilities: capabilities("203.0.113.5", port: 5000), using: &generator)
        let first = try alice.makeOffer(using: &generator)
        let (answer, _) = try bob.receiveOffer(first, using: &generator)
        let initial = try alice.receiveAnswer(answer)

        alice.moveLocalAddress(to: "2001:db8::7")
        let moved = try alice.makeResumeOffer()
        XCTAssertEqual(moved.connection, SDPConnection(addressType: "IP6", address: "2001:db8::7"))
        XCTAssertEqual(moved.origin.address, "2001:db8::7")
        XCTAssertEqual(moved.origin.addressType, "IP6")
        XCTAssertEqual(moved.origin.sessionID, first.origin.sessionID)
        XCTAssertEqual(moved.origin.sessionVersion, first.origin.sessionVersion + 1)
        XCTAssertEqual(moved.media[0].port, first.media[0].port)
        XCTAssertEqual(moved.media[0].cryptoAttributes, [SDESCryptoAttribute(tag: 1, keyMaterial: try XCTUnwrap(initial.localKey))])
        let (_, bobMedia) = try bob.receiveOffer(moved, using: &generator)
        XCTAssertEqual(bobMedia.remoteRTP.host, "2001:db8::7")
        XCTAssertEqual(bobMedia.remoteKey, initial.localKey, "SRTP continues with the same keys")
    }

    func testHoldWhileHeldIsInactiveAndRollback() throws {
        var alice = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        let offer = try remoteOffer(formats: "0", maps: [], extra: ["a=sendonly"])
        let (_, media) = try alice.receiveOffer(offer, using: &generator)
        XCTAssertEqual(media.direction, .recvonly)
        let hold = try alice.makeHoldOffer()
        XCTAssertEqual(hold.media[0].directionAttribute, .inactive)
        alice.rollbackOffer()
        XCTAssertEqual(alice.state, .stable(media))
    }

    // MARK: Answering: the matrix

    func testOpusOnlyPeer() throws {
        var bob = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        let offer = try remoteOffer(formats: "96", maps: ["a=rtpmap:96 opus/48000/2", "a=fmtp:96 maxaveragebitrate=20000;useinbandfec=0"])
        let (answer, media) = try bob.receiveOffer(offer, using: &generator)
        XCTAssertEqual(media.payloadType, 96, "keeps the offerer's payload type")
        XCTAssertEqual(media.codec, .opus(OpusSettings(bitrate: 20_000, maxAverageBitrate: 20_000, complexity: 10, fec: false)), "a low cap raises the complexity")
        XCTAssertNil(media.telephoneEventPayloadType)
        XCTAssertEqual(answer.media[0].mediaLineValue, "audio 4000 RTP/SAVP 96")
        XCTAssertFalse(media.rtcpMux, "the offer had no rtcp-mux")
        XCTAssertFalse(answer.media[0].rtcpMux)
        XCTAssertEqual(media.remoteRTCP, SDPTransportAddress(host: "198.51.100.7", port: 30001))
    }

    func testAPeersLowBitrateCapRaisesTheComplexityUnlessTheAppChoseCPU() throws {
        func negotiated(_ ours: OpusSettings, peerCap: Int) throws -> OpusSettings {
            var bob = SDPOfferAnswer(capabilities: capabilities(codecs: [.opus(ours)]), using: &generator)
            let offer = try remoteOffer(
                formats: "111", maps: ["a=rtpmap:111 opus/48000/2", "a=fmtp:111 maxaveragebitrate=\(peerCap);useinbandfec=1"])
            let codec = try bob.receiveOffer(offer, using: &generator).1.codec
            guard case let .opus(settings) = codec else {
                XCTFail("expected Opus, got \(codec)")
                return ours
            }
            return settings
        }
        // baresip's loss configuration caps at 32 kb/s: the default encoder goes to complexity 10.
        let baresip = try negotiated(.voice, peerCap: 32_000)
        XCTAssertEqual(baresip.bitrate, 32_000)
        XCTAssertEqual(baresip.maxAverageBitrate, 32_000)
        XCTAssertEqual(baresip.complexity, 10)
        // A cap that leaves 48 kb/s or more changes only the bitrates.
        let generous = try negotiated(.voice, peerCap: 64_000)
        XCTAssertEqual(generous.bitrate, 64_000)
        XCTAssertEqual(generous.maxAverageBitrate, 64_000)
        XCTAssertEqual(generous.complexity, 5)
        XCTAssertEqual(try negotiated(.voice, peerCap: 48_000).complexity, 5, "the threshold itself is not below it")
        // An app that chose a low complexity for CPU keeps it.
        XCTAssertEqual(try negotiated(OpusSettings(complexity: 2), peerCap: 24_000).complexity, 2)
        // A cap above what we send anyway is no cap.
        let modest = OpusSettings(bitrate: 24_000, maxAverageBitrate: 32_000)
        XCTAssertEqual(try negotiated(modest, peerCap: 40_000), modest)
    }

    func testPCMUOnlyPeerWithTelephoneEvent() throws {
        var bob = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        let offer = try remoteOffer(
            formats: "0 101", maps: ["a=rtpmap:101 telephone-event/8000", "a=fmtp:101 0-16", "a=ptime:30"],
            extra: ["a=rtcp:30005 IN IP4 198.51.100.8"])
        let (answer, media) = try bob.receiveOffer(offer, using: &generator)
        XCTAssertEqual(media.codec, .pcmu)
        XCTAssertEqual(media.payloadType, 0)
        XCTAssertEqual(media.telephoneEventPayloadType, 101)
        XCTAssertEqual(media.ptime, 20, "30 ms is not a supported ptime")
        XCTAssertEqual(media.remoteRTCP, SDPTransportAddress(host: "198.51.100.8", port: 30005))
        XCTAssertEqual(answer.media[0].formats, ["0", "101"])
    }

    func testTheDefaultOfferListsOpusThenG722ThenG711() throws {
        var alice = SDPOfferAnswer(capabilities: SDPLocalCapabilities(address: "192.0.2.10", port: 4000), using: &generator)
        let audio = try XCTUnwrap(try alice.makeOffer(using: &generator).media.first)
        XCTAssertEqual(audio.formats.prefix(4), ["111", "9", "0", "8"])
        // RFC 3551: G.722's clock rate is 8000 though it samples at 16 kHz; written out for peers
        // that want every format mapped.
        XCTAssertEqual(audio.rtpMap(for: 9)?.value, "9 G722/8000")
    }

    func testADeskPhoneOfferingG722AndG711GetsG722() throws {
        // A desk phone's offer: G.722 first without an rtpmap (a static payload type), G.711,
        // and telephone-event at 8 kHz.
        var bob = SDPOfferAnswer(
            capabilities: capabilities(codecs: [.opus(.voice), .g722, .pcmu, .pcma]), using: &generator)
        let offer = try remoteOffer(formats: "9 0 8 101", maps: ["a=rtpmap:101 telephone-event/8000", "a=ptime:20"])
        let (answer, media) = try bob.receiveOffer(offer, using: &generator)
        XCTAssertEqual(media.codec, .g722)
        XCTAssertEqual(media.payloadType, 9)
        XCTAssertEqual(media.telephoneEventPayloadType, 101, "DTMF at 8 kHz, G.722's RTP clock")
        XCTAssertEqual(answer.media[0].formats, ["9", "101"])
        // The answer follows the offerer's order (RFC 3264 §6.1): a phone that lists G.711 first gets G.711.
        var erin = SDPOfferAnswer(
            capabilities: capabilities(codecs: [.opus(.voice), .g722, .pcmu, .pcma]), using: &generator)
        let narrowFirst = try remoteOffer(formats: "0 9 101", maps: ["a=rtpmap:101 telephone-event/8000"])
        XCTAssertEqual(try erin.receiveOffer(narrowFirst, using: &generator).media.codec, .pcmu)
        // Without G.722 among our codecs the first offer gets G.711.
        var carol = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        XCTAssertEqual(try carol.receiveOffer(offer, using: &generator).media.codec, .pcmu)
        // G.722 at another clock rate (the 16000 some peers write by mistake) is not G.722 to us.
        var dave = SDPOfferAnswer(capabilities: capabilities(codecs: [.g722, .pcmu]), using: &generator)
        let wrong = try remoteOffer(formats: "9 0", maps: ["a=rtpmap:9 G722/16000"])
        XCTAssertEqual(try dave.receiveOffer(wrong, using: &generator).media.codec, .pcmu)
    }

    func testOpusPairsWithTelephoneEvent8000WhenThatIsAllThePeerHas() throws {
        // baresip, Asterisk and FreeSWITCH offer Opus with telephone-event/8000 only.
        var bob = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        let offer = try remoteOffer(formats: "111 101", maps: ["a=rtpmap:111 opus/48000/2", "a=rtpmap:101 telephone-event/8000"])
        let result = try bob.receiveOffer(offer, using: &generator)
        XCTAssertEqual(result.media.telephoneEventPayloadType, 101)
        XCTAssertEqual(result.answer.media[0].rtpMap(for: 101)?.value, "101 telephone-event/8000", "the answer keeps the offered rate")
        // The exact rate wins when both are there.
        var carol = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        let both = try remoteOffer(
            formats: "111 101 110",
            maps: ["a=rtpmap:111 opus/48000/2", "a=rtpmap:101 telephone-event/8000", "a=rtpmap:110 telephone-event/48000"])
        XCTAssertEqual(try carol.receiveOffer(both, using: &generator).media.telephoneEventPayloadType, 110)
    }

    func testTelephoneEventAtAnotherRateIsNotUsedWithG711() throws {
        var bob = SDPOfferAnswer(capabilities: capabilities(codecs: [.pcmu]), using: &generator)
        let offer = try remoteOffer(formats: "0 110", maps: ["a=rtpmap:110 telephone-event/48000"])
        XCTAssertNil(try bob.receiveOffer(offer, using: &generator).media.telephoneEventPayloadType)
    }

    func testNoCommonCodecMapsTo488() throws {
        var bob = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        let offer = try remoteOffer(formats: "18 9", maps: ["a=rtpmap:18 G729/8000"])
        XCTAssertThrowsError(try bob.receiveOffer(offer, using: &generator)) {
            XCTAssertEqual($0 as? SDPNegotiationError, .noCommonCodec)
            XCTAssertEqual(($0 as? SDPNegotiationError)?.sipStatusCode, 488)
        }
        XCTAssertEqual(bob.state, .idle)
    }

    func testNoCommonCrypto() throws {
        var bob = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        let offer = try remoteOffer(
            formats: "0", maps: [],
            crypto: [
                "a=crypto:1 F8_128_HMAC_SHA1_80 inline:\(key80)",
                "a=crypto:2 AEAD_AES_256_GCM inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKiss",
            ])
        XCTAssertThrowsError(try bob.receiveOffer(offer, using: &generator)) {
            XCTAssertEqual($0 as? SDPNegotiationError, .noCommonCryptoSuite)
            XCTAssertEqual(($0 as? SDPNegotiationError)?.sipStatusCode, 488)
        }
    }

    func testCryptoChoiceFollowsOffererOrderAmongOurSuites() throws {
        var bob = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        let offer = try remoteOffer(
            formats: "0", maps: [],
            crypto: [
                "a=crypto:5 AES_CM_128_HMAC_SHA1_32 inline:NzB4d1BINUAvLEw6UzF3WSJ+PSdFcGdUJShpX1Zj",
                "a=crypto:6 AES_CM_128_HMAC_SHA1_80 inline:\(key80)",
            ])
        let (answer, media) = try bob.receiveOffer(offer, using: &generator)
        let crypto = try XCTUnwrap(answer.media[0].cryptoAttributes.first)
        XCTAssertEqual(crypto.tag, 5)
        XCTAssertEqual(crypto.suite, .aesCM128HmacSHA1_32)
        XCTAssertEqual(media.localKey, crypto.keyMaterial)
        XCTAssertEqual(media.remoteKey?.suite, .aesCM128HmacSHA1_32)
        XCTAssertNotEqual(media.localKey, media.remoteKey)
    }

    func testPlainOfferWhenSRTPIsMandatory() throws {
        var bob = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        let offer = try remoteOffer(proto: "RTP/AVP", formats: "0", maps: [])
        XCTAssertThrowsError(try bob.receiveOffer(offer, using: &generator)) {
            XCTAssertEqual($0 as? SDPNegotiationError, .encryptionRequired)
            XCTAssertEqual(($0 as? SDPNegotiationError)?.sipStatusCode, 488)
        }
    }

    func testPlainOfferAcceptedWhenOptedIn() throws {
        var bob = SDPOfferAnswer(capabilities: capabilities(encryption: .unencrypted), using: &generator)
        let offer = try remoteOffer(proto: "RTP/AVP", formats: "8", maps: [])
        let (answer, media) = try bob.receiveOffer(offer, using: &generator)
        XCTAssertEqual(media.codec, .pcma)
        XCTAssertNil(media.localKey)
        guard case .unencrypted = media.encryption else { return XCTFail("expected plain RTP") }
        XCTAssertEqual(answer.media[0].proto, "RTP/AVP")
        var strict = SDPOfferAnswer(capabilities: capabilities(encryption: .unencrypted), using: &generator)
        XCTAssertThrowsError(try strict.receiveOffer(try remoteOffer(formats: "0", maps: []), using: &generator)) {
            XCTAssertEqual($0 as? SDPNegotiationError, .encryptionNotEnabled)
        }
    }

    func testSendonlyOfferGetsRecvonlyAnswer() throws {
        var bob = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        let offer = try remoteOffer(formats: "0", maps: [], extra: ["a=sendonly"])
        let (answer, media) = try bob.receiveOffer(offer, using: &generator)
        XCTAssertEqual(answer.media[0].directionAttribute, .recvonly)
        XCTAssertEqual(media.direction, .recvonly)
        let inactive = try remoteOffer(formats: "0", maps: [], extra: ["a=inactive"])
        XCTAssertEqual(try bob.receiveOffer(inactive, using: &generator).answer.media[0].directionAttribute, .inactive)
    }

    func testSessionLevelDirectionApplies() throws {
        var bob = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        let offer = try parse([
            "v=0", "o=- 1 1 IN IP4 198.51.100.7", "s=-", "c=IN IP4 198.51.100.7", "t=0 0", "a=sendonly",
            "m=audio 30000 RTP/SAVP 0", "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key80)",
        ])
        XCTAssertEqual(try bob.receiveOffer(offer, using: &generator).media.direction, .recvonly)
    }

    func testPortZeroStreamAndVideoAreRejected() throws {
        var bob = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        let offer = try parse([
            "v=0", "o=alice 2890844526 2890844526 IN IP4 host.atlanta.example.com", "s=",
            "c=IN IP4 host.atlanta.example.com", "t=0 0",
            "m=audio 0 RTP/SAVP 0", "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key80)",
            "m=audio 49170 RTP/SAVP 0 8 97", "a=rtpmap:97 iLBC/8000", "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key80)",
            "m=video 51372 RTP/SAVP 31 32", "a=rtpmap:31 H261/90000", "a=rtpmap:32 MPV/90000",
        ])
        let (answer, media) = try bob.receiveOffer(offer, using: &generator)
        XCTAssertEqual(answer.media.map(\.port), [0, 4000, 0])
        XCTAssertEqual(answer.media.map(\.media), ["audio", "audio", "video"])
        XCTAssertEqual(answer.media[2].formats, ["31", "32"])
        XCTAssertEqual(media.remoteRTP, SDPTransportAddress(host: "host.atlanta.example.com", port: 49170))
        XCTAssertEqual(media.codec, .pcmu)
        // The answer text still parses: port-0 sections need no crypto or connection of their own.
        XCTAssertEqual(try SDPSessionDescription(parsing: answer.text), answer)
    }

    func testOfferWithOnlyDisabledAudio() throws {
        var bob = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        let offer = try parse(["v=0", "o=- 1 1 IN IP4 198.51.100.7", "s=-", "t=0 0", "m=audio 0 RTP/SAVP 0"])
        XCTAssertThrowsError(try bob.receiveOffer(offer, using: &generator)) {
            XCTAssertEqual($0 as? SDPNegotiationError, .noAudioStream)
        }
    }

    // MARK: Processing answers

    private func offered(_ negotiation: inout SDPOfferAnswer) throws -> SDPSessionDescription {
        try negotiation.makeOffer(using: &generator)
    }

    private func answer(
        _ lines: [String], proto: String = "RTP/SAVP", formats: String,
        crypto: String = "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR"
    ) throws -> SDPSessionDescription {
        try parse(
            [
                "v=0", "o=- 20 20 IN IP4 203.0.113.9", "s=-", "c=IN IP4 203.0.113.9", "t=0 0",
                "m=audio 7000 \(proto) \(formats)",
            ] + lines + [crypto])
    }

    func testAsteriskStyleAnswerWithRenumberedTelephoneEvent() throws {
        var alice = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        _ = try offered(&alice)
        let media = try alice.receiveAnswer(
            try answer(
                [
                    "a=rtpmap:0 PCMU/8000", "a=rtpmap:100 telephone-event/8000",
                    "a=ptime:40", "a=rtcp-mux",
                ], formats: "0 100"))
        XCTAssertEqual(media.codec, .pcmu)
        XCTAssertEqual(media.telephoneEventPayloadType, 100)
        XCTAssertEqual(media.ptime, 40)
        XCTAssertTrue(media.rtcpMux)
        XCTAssertEqual(media.remoteRTP, SDPTransportAddress(host: "203.0.113.9", port: 7000))
        XCTAssertEqual(media.remoteKey?.suite, .aesCM128HmacSHA1_80)
        XCTAssertEqual(media.localKey?.suite, .aesCM128HmacSHA1_80)
    }

    func testAnswerMustBeASubsetOfTheOffer() throws {
        var alice = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        _ = try offered(&alice)
        XCTAssertThrowsError(try alice.receiveAnswer(try answer(["a=rtpmap:18 G729/8000"], formats: "18"))) {
            guard case .answerMismatch = $0 as? SDPNegotiationError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(
            try alice.receiveAnswer(
                try answer(
                    [], formats: "0",
                    crypto: "a=crypto:9 AES_CM_128_HMAC_SHA1_80 inline:\(key80)"))
        ) {
            guard case .answerMismatch = $0 as? SDPNegotiationError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try alice.receiveAnswer(try answer([], proto: "RTP/AVP", formats: "0", crypto: "a=sendrecv"))) {
            guard case .answerMismatch = $0 as? SDPNegotiationError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try alice.receiveAnswer(try answer([], formats: "0", crypto: "a=sendrecv"))) {
            XCTAssertEqual($0 as? SDPNegotiationError, .noCommonCryptoSuite)
        }
        XCTAssertThrowsError(try alice.receiveAnswer(try answer(["a=rtpmap:101 telephone-event/8000"], formats: "101"))) {
            XCTAssertEqual($0 as? SDPNegotiationError, .noCommonCodec)
        }
        let rejected = try parse(["v=0", "o=- 20 20 IN IP4 203.0.113.9", "s=-", "t=0 0", "m=audio 0 RTP/SAVP 0"])
        XCTAssertThrowsError(try alice.receiveAnswer(rejected)) {
            XCTAssertEqual($0 as? SDPNegotiationError, .streamRejected)
        }
        // Still waiting: a valid answer is accepted afterwards.
        XCTAssertEqual(try alice.receiveAnswer(try answer([], formats: "8")).codec, .pcma)
        XCTAssertThrowsError(try alice.receiveAnswer(try answer([], formats: "8"))) {
            XCTAssertEqual($0 as? SDPNegotiationError, .noOfferPending)
        }
    }

    func testGlareIs491() throws {
        var alice = SDPOfferAnswer(capabilities: capabilities(), using: &generator)
        _ = try offered(&alice)
        XCTAssertThrowsError(try alice.receiveOffer(try remoteOffer(formats: "0", maps: []), using: &generator)) {
            XCTAssertEqual($0 as? SDPNegotiationError, .offerPending)
            XCTAssertEqual(($0 as? SDPNegotiationError)?.sipStatusCode, 491)
        }
    }
}
