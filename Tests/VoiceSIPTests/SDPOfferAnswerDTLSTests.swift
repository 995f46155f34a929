import VoiceMediaTypes
import VoiceSIPTestVectors
import XCTest

@testable import VoiceSIP

/// Offer/answer with DTLS-SRTP, ICE, rtcp-mux and BUNDLE: our offers and answers, real WebRTC
/// peers' SDP, the `a=setup` rules, and what is refused.
final class SDPOfferAnswerDTLSTests: XCTestCase {
    private let fingerprintA = SDPFingerprint(hashFunction: "sha-256", digest: Array(0..<32))
    private let fingerprintB = SDPFingerprint(hashFunction: "sha-256", digest: Array(200..<232))

    private func ice(_ ufrag: String, host: String, port: UInt16) -> SDPICEParameters {
        SDPICEParameters(
            usernameFragment: ufrag, password: ufrag + "Pw0123456789abcdef+/xyz", options: ["trickle"],
            candidates: [
                SDPICECandidate(
                    foundation: "1", component: 1, transport: "udp", priority: 2_130_706_431, address: host, port: port, kind: .host),
                SDPICECandidate(
                    foundation: "2", component: 1, transport: "udp", priority: 1_694_498_815, address: "203.0.113.50", port: port + 1,
                    kind: .serverReflexive, relatedAddress: host, relatedPort: port),
            ])
    }

    private func capabilities(
        _ address: String = "192.0.2.10", port: UInt16 = 4000, encryption: SDPEncryptionPolicy = .dtlsSRTP,
        ufrag: String = "aliceUF", fingerprint: SDPFingerprint? = nil, withICE: Bool = true
    ) -> SDPLocalCapabilities {
        SDPLocalCapabilities(
            address: address, port: port, encryption: encryption,
            ice: withICE ? ice(ufrag, host: address, port: port) : nil, dtlsFingerprint: fingerprint ?? fingerprintA)
    }

    private var bobCapabilities: SDPLocalCapabilities {
        capabilities(
            "203.0.113.5", port: 5000, encryption: .automatic(suites: [.aesCM128HmacSHA1_80]), ufrag: "bobUF", fingerprint: fingerprintB)
    }

    private func parse(_ text: String) throws -> SDPSessionDescription { try SDPSessionDescription(parsing: text) }

    /// `text` with the lines starting with any of `dropping` removed and `adding` put at the end
    /// (in the last media section), or after `t=` when `atSessionLevel`.
    private func edited(
        _ text: String, dropping: [String] = [], adding: [String] = [], atSessionLevel: Bool = false
    ) throws -> SDPSessionDescription {
        var lines = text.components(separatedBy: "\r\n").filter { line in !line.isEmpty && !dropping.contains { line.hasPrefix($0) } }
        if atSessionLevel, let timing = lines.firstIndex(where: { $0.hasPrefix("t=") }) {
            lines.insert(contentsOf: adding, at: timing + 1)
        } else {
            lines += adding
        }
        return try parse(lines.map { $0 + "\r\n" }.joined())
    }

    private func assertRefused<T>(
        _ expression: @autoclosure () throws -> T, _ expected: SDPNegotiationError, status: Int = 488,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try expression(), file: file, line: line) {
            XCTAssertEqual($0 as? SDPNegotiationError, expected, file: file, line: line)
            XCTAssertEqual(($0 as? SDPNegotiationError)?.sipStatusCode, status, file: file, line: line)
        }
    }

    private func assertAnswerMismatch<T>(_ expression: @autoclosure () throws -> T, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try expression(), file: file, line: line) {
            guard case .answerMismatch = $0 as? SDPNegotiationError else { return XCTFail("\($0)", file: file, line: line) }
        }
    }

    /// Alice (`.dtlsSRTP`, or `policy`) offers, Bob (`.automatic`) answers, Alice accepts.
    private func negotiate(
        _ alice: inout SDPOfferAnswer, _ bob: inout SDPOfferAnswer
    ) throws -> (offer: SDPSessionDescription, answer: SDPSessionDescription, alice: SDPNegotiatedMedia, bob: SDPNegotiatedMedia) {
        let offer = try parse(try alice.makeOffer().text)
        let (answer, bobMedia) = try bob.receiveOffer(offer)
        let parsed = try parse(answer.text)
        XCTAssertEqual(parsed, answer, "the answer's text parses back")
        return (offer, parsed, try alice.receiveAnswer(parsed), bobMedia)
    }

    // MARK: Our offers

    func testOfferLines() throws {
        var caps = capabilities()
        caps.rtcpMux = false
        caps.rtcpPort = 4001
        var alice = SDPOfferAnswer(capabilities: caps)
        let offer = try alice.makeOffer()
        let text = offer.text
        let session = text.components(separatedBy: "m=audio")[0]
        XCTAssertTrue(session.contains("\r\nc=IN IP4 192.0.2.10\r\n"))
        XCTAssertTrue(session.contains("\r\na=group:BUNDLE 0\r\n"), session)
        let lines = Array(text.components(separatedBy: "\r\n").drop { !$0.hasPrefix("m=") }.dropLast())
        XCTAssertEqual(
            lines,
            [
                "m=audio 4000 UDP/TLS/RTP/SAVPF 111 9 0 8 63 110 101",
                "a=rtpmap:111 opus/48000/2",
                "a=fmtp:111 useinbandfec=1;usedtx=0;maxaveragebitrate=80000;stereo=0",
                "a=rtpmap:9 G722/8000",
                "a=rtpmap:0 PCMU/8000",
                "a=rtpmap:8 PCMA/8000",
                "a=rtpmap:63 red/48000/2",
                "a=fmtp:63 111/111",
                "a=rtpmap:110 telephone-event/48000",
                "a=fmtp:110 0-16",
                "a=rtpmap:101 telephone-event/8000",
                "a=fmtp:101 0-16",
                "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
                "a=rtcp-xr:voip-metrics",
                "a=ptime:20",
                "a=sendrecv",
                "a=rtcp-mux",
                "a=mid:0",
                "a=ice-ufrag:aliceUF",
                "a=ice-pwd:aliceUFPw0123456789abcdef+/xyz",
                "a=candidate:1 1 udp 2130706431 192.0.2.10 4000 typ host",
                "a=candidate:2 1 udp 1694498815 203.0.113.50 4001 typ srflx raddr 192.0.2.10 rport 4000",
                "a=end-of-candidates",
                "a=fingerprint:sha-256 00:01:02:03:04:05:06:07:08:09:0A:0B:0C:0D:0E:0F:10:11:12:13:14:15:16:17:18:19:1A:1B:1C:1D:1E:1F",
                "a=setup:actpass",
            ], "rtcp-mux although the capabilities say no, no a=rtcp, no trickle, no crypto")

        // It reads back with the parsers a peer's SDP goes through.
        let parsed = try parse(text)
        XCTAssertEqual(parsed, offer)
        let audio = try XCTUnwrap(parsed.media.first)
        XCTAssertTrue(audio.isDTLSSRTP)
        XCTAssertTrue(audio.isRTP)
        XCTAssertFalse(audio.isSecureRTP)
        XCTAssertTrue(audio.cryptoAttributes.isEmpty)
        let ice = try XCTUnwrap(SDPICEParameters(media: audio, session: parsed))
        XCTAssertEqual(ice.usernameFragment, "aliceUF")
        XCTAssertEqual(ice.password, "aliceUFPw0123456789abcdef+/xyz")
        XCTAssertEqual(ice.options, [])
        XCTAssertEqual(ice.candidates, caps.ice?.candidates)
        XCTAssertTrue(ice.endOfCandidates)
        XCTAssertFalse(ice.isLite)
        XCTAssertEqual(audio.fingerprints(in: parsed), [fingerprintA])
        XCTAssertEqual(audio.setupRole(in: parsed), .actpass)
        XCTAssertEqual(audio.mid, "0")
    }

    func testAutomaticOffersLikeDTLS() throws {
        var dtls = SDPOfferAnswer(capabilities: capabilities())
        var automatic = SDPOfferAnswer(capabilities: capabilities(encryption: .automatic(suites: [.aesCM128HmacSHA1_80])))
        let a = try dtls.makeOffer()
        let b = try automatic.makeOffer()
        XCTAssertEqual(a.media, b.media)
        XCTAssertEqual(a.attributes, b.attributes)
    }

    func testDTLSWithoutICEOrFingerprintIsOurConfigurationError() throws {
        var noICE = SDPOfferAnswer(capabilities: capabilities(withICE: false))
        assertRefused(try noICE.makeOffer(), .dtlsNotConfigured("our ICE parameters (SDPLocalCapabilities.ice)"), status: 500)
        XCTAssertEqual(noICE.state, .idle)
        var caps = capabilities(encryption: .automatic(suites: [.aesCM128HmacSHA1_80]))
        caps.dtlsFingerprint = nil
        var noFingerprint = SDPOfferAnswer(capabilities: caps)
        assertRefused(
            try noFingerprint.makeOffer(), .dtlsNotConfigured("our certificate's fingerprint (SDPLocalCapabilities.dtlsFingerprint)"),
            status: 500)
        assertRefused(
            try noFingerprint.receiveOffer(try parse(WebRTCSDPSamples.chromiumOffer)),
            .dtlsNotConfigured("our certificate's fingerprint (SDPLocalCapabilities.dtlsFingerprint)"), status: 500)
        XCTAssertEqual(noFingerprint.state, .idle)
    }

    // MARK: Two endpoints

    func testTwoAutomaticEndpointsNegotiateDTLS() throws {
        var alice = SDPOfferAnswer(capabilities: capabilities(encryption: .automatic(suites: [.aesCM128HmacSHA1_80])))
        var bob = SDPOfferAnswer(capabilities: bobCapabilities)
        let (_, answer, aliceMedia, bobMedia) = try negotiate(&alice, &bob)

        let audio = try XCTUnwrap(answer.media.first)
        XCTAssertEqual(audio.proto, "UDP/TLS/RTP/SAVPF")
        XCTAssertEqual(audio.setupRole(in: answer), .active)
        XCTAssertTrue(audio.rtcpMux)
        XCTAssertEqual(audio.mid, "0")
        XCTAssertEqual(answer.attributes, [SDPAttribute(name: "group", value: "BUNDLE 0")])
        XCTAssertTrue(audio.cryptoAttributes.isEmpty)

        XCTAssertEqual(aliceMedia.dtls, SDPNegotiatedDTLS(isClient: false, remoteFingerprints: [fingerprintB]), "the answer said active")
        XCTAssertEqual(bobMedia.dtls, SDPNegotiatedDTLS(isClient: true, remoteFingerprints: [fingerprintA]))
        XCTAssertEqual(aliceMedia.ice?.isControlling, true, "the offerer controls")
        XCTAssertEqual(bobMedia.ice?.isControlling, false)
        XCTAssertEqual(aliceMedia.ice?.remote.usernameFragment, "bobUF")
        XCTAssertEqual(aliceMedia.ice?.remote.candidates, bobCapabilities.ice?.candidates)
        XCTAssertEqual(aliceMedia.ice?.remote.endOfCandidates, true)
        XCTAssertEqual(bobMedia.ice?.remote.usernameFragment, "aliceUF")
        XCTAssertEqual(bobMedia.ice?.remote.candidates.count, 2)
        for media in [aliceMedia, bobMedia] {
            guard case .dtlsSRTP = media.encryption else { return XCTFail("expected DTLS-SRTP, got \(media.encryption)") }
            XCTAssertNil(media.localKey)
            XCTAssertNil(media.remoteKey)
            XCTAssertTrue(media.rtcpMux)
            XCTAssertEqual(media.remoteRTCP, media.remoteRTP)
            XCTAssertEqual(media.payloadType, 111)
            XCTAssertEqual(media.telephoneEventPayloadType, 110)
        }
        XCTAssertEqual(
            aliceMedia.remoteRTP, SDPTransportAddress(host: "203.0.113.5", port: 5000), "the c= address; ICE picks the path later")
        XCTAssertEqual(bobMedia.remoteRTP, SDPTransportAddress(host: "192.0.2.10", port: 4000))
    }

    // MARK: Real peers' offers and answers

    func testAnsweringRealWebRTCOffers() throws {
        // Chromium offers RED (63) around Opus: the answer takes it, after Opus.
        let cases: [(name: String, text: String, pt: UInt8, red: UInt8?, te: UInt8?, mid: String?, candidates: Int, remote: SDPTransportAddress)] = [
            ("Chromium", WebRTCSDPSamples.chromiumOffer, 111, 63, 110, "0", 4, SDPTransportAddress(host: "192.0.2.2", port: 35847)),
            (
                "Chromium relay-only", WebRTCSDPSamples.chromiumRelayOnlyOffer, 111, 63, 110, "0", 1,
                SDPTransportAddress(host: "127.0.0.1", port: 49250)
            ),
            ("aiortc", WebRTCSDPSamples.aiortcOffer, 96, nil, nil, "0", 2, SDPTransportAddress(host: "192.0.2.2", port: 34405)),
            ("baresip", WebRTCSDPSamples.baresipICEDTLSOffer, 96, nil, 101, nil, 2, SDPTransportAddress(host: "192.0.2.2", port: 20334)),
        ]
        for sample in cases {
            let offer = try parse(sample.text)
            let offered = try XCTUnwrap(offer.media.first)
            var bob = SDPOfferAnswer(capabilities: capabilities("203.0.113.5", port: 5000, ufrag: "bobUF", fingerprint: fingerprintB))
            let (answer, media) = try bob.receiveOffer(offer)
            guard case .opus = media.codec else { return XCTFail("\(sample.name): expected Opus, got \(media.codec)") }
            XCTAssertEqual(media.payloadType, sample.pt, sample.name)
            XCTAssertEqual(media.telephoneEventPayloadType, sample.te, sample.name)
            XCTAssertEqual(media.remoteRTP, sample.remote, sample.name)
            XCTAssertEqual(media.remoteRTCP, sample.remote, "\(sample.name): rtcp-mux")
            XCTAssertEqual(media.dtls?.isClient, true, sample.name)
            XCTAssertEqual(media.dtls?.remoteFingerprints, offered.fingerprints(in: offer), sample.name)
            XCTAssertEqual(media.ice?.remote, SDPICEParameters(media: offered, session: offer), sample.name)
            XCTAssertEqual(media.ice?.remote.candidates.count, sample.candidates, sample.name)
            XCTAssertEqual(media.ice?.isControlling, false, sample.name)

            let parsed = try parse(answer.text)
            XCTAssertEqual(parsed, answer, sample.name)
            let audio = try XCTUnwrap(parsed.media.first)
            XCTAssertEqual(audio.proto, "UDP/TLS/RTP/SAVPF", sample.name)
            XCTAssertEqual(
                audio.formats, [String(sample.pt)] + (sample.red.map { [String($0)] } ?? []) + (sample.te.map { [String($0)] } ?? []), sample.name)
            XCTAssertEqual(media.redPayloadType, sample.red, sample.name)
            XCTAssertEqual(audio.setupRole(in: parsed), .active, sample.name)
            XCTAssertTrue(audio.rtcpMux, sample.name)
            XCTAssertEqual(audio.mid, sample.mid, sample.name)
            XCTAssertEqual(
                parsed.attributes.filter { $0.name == "group" },
                sample.mid.map { [SDPAttribute(name: "group", value: "BUNDLE \($0)")] } ?? [],
                "\(sample.name): BUNDLE when offered")
            XCTAssertEqual(audio.fingerprints(in: parsed), [fingerprintB], sample.name)
            let ours = try XCTUnwrap(SDPICEParameters(media: audio, session: parsed), sample.name)
            XCTAssertEqual(ours.usernameFragment, "bobUF", sample.name)
            XCTAssertEqual(ours.candidates.count, 2, sample.name)
            XCTAssertTrue(ours.endOfCandidates, sample.name)
            XCTAssertFalse(audio.hasAttribute("crypto"), sample.name)
            // RFC 6464 levels: accepted under the offer's ID when offered (Chromium 1, aiortc 2), else not mentioned.
            let levelID: UInt8? = ["Chromium": 1, "Chromium relay-only": 1, "aiortc": 2][sample.name]
            XCTAssertEqual(offered.audioLevelExtensionID, levelID, sample.name)
            XCTAssertEqual(media.audioLevelExtensionID, levelID, sample.name)
            XCTAssertEqual(audio.audioLevelExtensionID, levelID, "\(sample.name): the answer's extmap")
            XCTAssertEqual(audio.attributeValues("extmap").count, levelID == nil ? 0 : 1, "\(sample.name): only the audio level is taken")
        }
    }

    /// `a=extmap` for RFC 6464 as peers write it, and what is not one.
    func testAudioLevelExtmapLinesAreReadStrictly() {
        func id(_ lines: [String]) -> UInt8? {
            SDPMediaDescription(
                media: "audio", port: 5000, proto: "RTP/AVP", formats: ["0"],
                attributes: lines.map { line in
                    let value = line.dropFirst("extmap:".count)
                    return SDPAttribute(name: "extmap", value: String(value))
                }
            ).audioLevelExtensionID
        }
        XCTAssertEqual(id(["extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level"]), 1)
        XCTAssertEqual(id(["extmap:3/sendonly urn:ietf:params:rtp-hdrext:ssrc-audio-level vad=on"]), 3, "direction and extension attributes")
        XCTAssertEqual(id(["extmap:200 URN:IETF:PARAMS:RTP-HDREXT:SSRC-AUDIO-LEVEL"]), 200, "a two-byte ID; URIs compare without case")
        XCTAssertEqual(id(["extmap:2 urn:ietf:params:rtp-hdrext:sdes:mid", "extmap:7 urn:ietf:params:rtp-hdrext:ssrc-audio-level"]), 7)
        for bad in ["extmap:0 urn:ietf:params:rtp-hdrext:ssrc-audio-level", "extmap:256 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
                    "extmap:x urn:ietf:params:rtp-hdrext:ssrc-audio-level", "extmap:1", "extmap:1 urn:ietf:params:rtp-hdrext:csrc-audio-level", "extmap:"] {
            XCTAssertNil(id([bad]), bad)
        }
    }

    func testRtpengineAnswerToOurOffer() throws {
        var alice = SDPOfferAnswer(capabilities: capabilities())
        _ = try alice.makeOffer()
        let media = try alice.receiveAnswer(try parse(WebRTCSDPSamples.rtpengineAnswer))
        guard case .opus = media.codec else { return XCTFail("expected Opus, got \(media.codec)") }
        XCTAssertEqual(media.payloadType, 96, "the answer's payload type for Opus")
        XCTAssertEqual(media.remoteRTP, SDPTransportAddress(host: "127.0.0.1", port: 30010))
        XCTAssertTrue(media.rtcpMux)
        XCTAssertEqual(media.dtls?.isClient, false, "rtpengine said active: it is the client")
        XCTAssertEqual(
            media.dtls?.remoteFingerprints.map(\.value),
            [
                "sha-256 BB:5B:52:78:76:83:7E:7C:4E:C3:3F:6F:46:EF:D6:F4:28:FC:4E:BB:9B:F1:D0:F9:DE:EB:A4:AD:5B:0B:02:B4"
            ])
        XCTAssertEqual(media.ice?.remote.usernameFragment, "ZIP8TBYc")
        XCTAssertEqual(media.ice?.remote.candidates.count, 1)
        XCTAssertEqual(media.ice?.isControlling, true)
        guard case .dtlsSRTP = media.encryption else { return XCTFail("expected DTLS-SRTP") }
    }

    func testChromiumOfferWithVideoAndDataChannelGetsAudioOnly() throws {
        let text = WebRTCSDPSamples.chromiumOffer.replacingOccurrences(of: "a=group:BUNDLE 0\r\n", with: "a=group:BUNDLE 0 1 2\r\n")
        let offer = try edited(
            text,
            adding: [
                "m=video 9 UDP/TLS/RTP/SAVPF 96", "c=IN IP4 0.0.0.0", "a=mid:1", "a=rtcp-mux", "a=rtpmap:96 VP8/90000",
                "m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "c=IN IP4 0.0.0.0", "a=mid:2", "a=sctp-port:5000",
            ])
        var bob = SDPOfferAnswer(capabilities: bobCapabilities)
        let (answer, media) = try bob.receiveOffer(offer)
        XCTAssertEqual(media.payloadType, 111)
        XCTAssertEqual(answer.media.map(\.port), [5000, 0, 0])
        XCTAssertEqual(answer.media.map(\.mid), ["0", "1", "2"], "refused sections keep their mid")
        XCTAssertEqual(answer.attributes, [SDPAttribute(name: "group", value: "BUNDLE 0")], "only the accepted section is bundled")
        XCTAssertEqual(try parse(answer.text), answer)
    }

    func testOfferWithoutICEIsAnsweredWithoutICE() throws {
        let offer = try edited(WebRTCSDPSamples.baresipICEDTLSOffer, dropping: ["a=ice-", "a=candidate"])
        var bob = SDPOfferAnswer(capabilities: bobCapabilities)
        let (answer, media) = try bob.receiveOffer(offer)
        XCTAssertNil(media.ice)
        XCTAssertEqual(media.remoteRTP, SDPTransportAddress(host: "192.0.2.2", port: 20334))
        XCTAssertEqual(media.dtls?.remoteFingerprints.count, 1, "baresip's session-level fingerprint")
        let audio = try XCTUnwrap(answer.media.first)
        XCTAssertFalse(audio.hasAttribute("ice-ufrag"))
        XCTAssertFalse(audio.hasAttribute("candidate"))
        XCTAssertEqual(audio.fingerprints(in: answer), [fingerprintB])
        XCTAssertEqual(audio.setupRole(in: answer), .active)
    }

    // MARK: Policies

    func testAutomaticAnswersSDESOffersAsSRTPDoes() throws {
        let key = "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR"
        let offer = try parse(
            [
                "v=0", "o=- 10 10 IN IP4 198.51.100.7", "s=-", "c=IN IP4 198.51.100.7", "t=0 0",
                "m=audio 30000 RTP/SAVP 0 101", "a=rtpmap:101 telephone-event/8000", "a=rtcp-mux",
                "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key)",
            ].map { $0 + "\r\n" }.joined())
        var sdes = SDPOfferAnswer(
            capabilities: SDPLocalCapabilities(address: "203.0.113.5", port: 5000, encryption: .srtp(suites: [.aesCM128HmacSHA1_80])))
        // No ICE or fingerprint needed to answer SDES.
        var automatic = SDPOfferAnswer(
            capabilities: SDPLocalCapabilities(address: "203.0.113.5", port: 5000, encryption: .automatic(suites: [.aesCM128HmacSHA1_80])))
        let expected = try sdes.receiveOffer(offer)
        let (answer, media) = try automatic.receiveOffer(offer)
        XCTAssertEqual(answer.media.map(\.mediaLineValue), expected.answer.media.map(\.mediaLineValue))
        XCTAssertEqual(answer.media[0].attributes.map(\.name), expected.answer.media[0].attributes.map(\.name))
        XCTAssertEqual(answer.media[0].cryptoAttributes.map(\.tag), [1])
        XCTAssertTrue(answer.attributes.isEmpty)
        XCTAssertNil(media.dtls)
        XCTAssertNil(media.ice)
        XCTAssertEqual(media.remoteKey, expected.media.remoteKey)
        XCTAssertEqual(media.localKey?.suite, .aesCM128HmacSHA1_80)
        guard case .srtp = media.encryption else { return XCTFail("expected SDES SRTP") }
        // Our re-offers in this session stay SDES, with the same key.
        let hold = try automatic.makeHoldOffer()
        XCTAssertEqual(hold.media[0].proto, "RTP/SAVP")
        XCTAssertEqual(hold.media[0].cryptoAttributes, answer.media[0].cryptoAttributes)
        XCTAssertFalse(hold.media[0].hasAttribute("fingerprint"))
        XCTAssertTrue(hold.attributes.isEmpty)

        var strict = SDPOfferAnswer(capabilities: capabilities())
        assertRefused(try strict.receiveOffer(offer), .dtlsRequired)
        XCTAssertEqual(strict.state, .idle)
    }

    func testPlainOffersAreRefusedAndDTLSOffersNeedDTLSPolicy() throws {
        let plain = try parse(
            ["v=0", "o=- 10 10 IN IP4 198.51.100.7", "s=-", "c=IN IP4 198.51.100.7", "t=0 0", "m=audio 30000 RTP/AVP 0"]
                .map { $0 + "\r\n" }.joined())
        var automatic = SDPOfferAnswer(capabilities: bobCapabilities)
        assertRefused(try automatic.receiveOffer(plain), .encryptionRequired)
        var dtls = SDPOfferAnswer(capabilities: capabilities())
        assertRefused(try dtls.receiveOffer(plain), .encryptionRequired)

        let chromium = try parse(WebRTCSDPSamples.chromiumOffer)
        var sdes = SDPOfferAnswer(capabilities: SDPLocalCapabilities(address: "203.0.113.5", port: 5000))
        assertRefused(try sdes.receiveOffer(chromium), .dtlsNotEnabled)
        var unencrypted = SDPOfferAnswer(capabilities: SDPLocalCapabilities(address: "203.0.113.5", port: 5000, encryption: .unencrypted))
        assertRefused(try unencrypted.receiveOffer(chromium), .encryptionNotEnabled)
    }

    // MARK: Refusals

    func testRefusedDTLSOffers() throws {
        let chromium = WebRTCSDPSamples.chromiumOffer
        let md5 = "a=fingerprint:md5 " + (0..<16).map { String(format: "%02X", $0) }.joined(separator: ":")
        let cases: [(String, SDPSessionDescription, SDPNegotiationError)] = [
            ("no rtcp-mux", try edited(chromium, dropping: ["a=rtcp-mux"]), .rtcpMuxRequired),
            ("no fingerprint", try edited(chromium, dropping: ["a=fingerprint"]), .noUsableFingerprint),
            ("md5 only", try edited(chromium, dropping: ["a=fingerprint"], adding: [md5]), .noUsableFingerprint),
            (
                "holdconn", try edited(chromium, dropping: ["a=setup"], adding: ["a=setup:holdconn"]),
                .dtlsSetupRefused("the offer holds the connection (holdconn)")
            ),
            (
                "unknown role", try edited(chromium, dropping: ["a=setup"], adding: ["a=setup:both"]),
                .dtlsSetupRefused("a=setup:both is not a role")
            ),
        ]
        for (name, offer, error) in cases {
            var bob = SDPOfferAnswer(capabilities: bobCapabilities)
            XCTAssertThrowsError(try bob.receiveOffer(offer), name) {
                XCTAssertEqual($0 as? SDPNegotiationError, error, name)
                XCTAssertEqual(($0 as? SDPNegotiationError)?.sipStatusCode, 488, name)
            }
            XCTAssertEqual(bob.state, .idle, name)
        }
    }

    func testRefusedDTLSAnswers() throws {
        var alice = SDPOfferAnswer(capabilities: capabilities())
        _ = try alice.makeOffer()
        let rtpengine = WebRTCSDPSamples.rtpengineAnswer
        assertAnswerMismatch(try alice.receiveAnswer(try edited(rtpengine, dropping: ["a=setup"], adding: ["a=setup:actpass"])))
        assertAnswerMismatch(try alice.receiveAnswer(try edited(rtpengine, dropping: ["a=setup"], adding: ["a=setup:holdconn"])))
        assertRefused(try alice.receiveAnswer(try edited(rtpengine, dropping: ["a=rtcp-mux"])), .rtcpMuxRequired)
        assertRefused(try alice.receiveAnswer(try edited(rtpengine, dropping: ["a=fingerprint"])), .noUsableFingerprint)
        let sdes = rtpengine.replacingOccurrences(of: "UDP/TLS/RTP/SAVPF", with: "RTP/SAVPF")
        assertAnswerMismatch(try alice.receiveAnswer(try parse(sdes)))
        // Still waiting: a good answer is accepted afterwards.
        XCTAssertNotNil(try alice.receiveAnswer(try parse(rtpengine)).dtls)
    }

    // MARK: a=setup

    func testSetupRoleAsAnswerer() throws {
        let table: [(offer: String?, ours: SDPSetupRole, isClient: Bool)] = [
            ("actpass", .active, true), ("active", .passive, false), ("passive", .active, true), (nil, .passive, false),
        ]
        for row in table {
            let offer = try edited(WebRTCSDPSamples.chromiumOffer, dropping: ["a=setup"], adding: row.offer.map { ["a=setup:\($0)"] } ?? [])
            var bob = SDPOfferAnswer(capabilities: bobCapabilities)
            let (answer, media) = try bob.receiveOffer(offer)
            XCTAssertEqual(answer.media[0].setupRole(in: answer), row.ours, "offer \(row.offer ?? "without a=setup")")
            XCTAssertEqual(media.dtls?.isClient, row.isClient, "offer \(row.offer ?? "without a=setup")")
        }
    }

    func testSetupRoleAsOfferer() throws {
        let table: [(answer: String?, isClient: Bool)] = [("active", false), ("passive", true), (nil, false), ("PASSIVE", true)]
        for row in table {
            var alice = SDPOfferAnswer(capabilities: capabilities())
            _ = try alice.makeOffer()
            let answer = try edited(
                WebRTCSDPSamples.rtpengineAnswer, dropping: ["a=setup"], adding: row.answer.map { ["a=setup:\($0)"] } ?? [])
            XCTAssertEqual(try alice.receiveAnswer(answer).dtls?.isClient, row.isClient, "answer \(row.answer ?? "without a=setup")")
        }
    }

    // MARK: Re-offers

    func testHoldReOfferKeepsCredentialsFingerprintAndRoles() throws {
        var alice = SDPOfferAnswer(capabilities: capabilities())
        var bob = SDPOfferAnswer(capabilities: bobCapabilities)
        let (first, firstAnswer, _, _) = try negotiate(&alice, &bob)
        // Credentials and certificate stay, whatever the capabilities say now.
        alice.capabilities.ice = ice("otherUF", host: "192.0.2.10", port: 4000)
        alice.capabilities.dtlsFingerprint = fingerprintB

        let hold = try parse(try alice.makeHoldOffer().text)
        let held = try XCTUnwrap(hold.media.first)
        XCTAssertEqual(held.directionAttribute, .sendonly)
        XCTAssertEqual(held.setupRole(in: hold), .actpass)
        XCTAssertEqual(held.fingerprints(in: hold), [fingerprintA])
        XCTAssertEqual(SDPICEParameters(media: held, session: hold)?.usernameFragment, "aliceUF")
        XCTAssertEqual(
            SDPICEParameters(media: held, session: hold)?.password, SDPICEParameters(media: first.media[0], session: first)?.password)
        XCTAssertEqual(hold.connection, SDPConnection(address: "192.0.2.10"), "never c=0.0.0.0")
        XCTAssertEqual(held.mid, "0")
        XCTAssertEqual(hold.attributes, [SDPAttribute(name: "group", value: "BUNDLE 0")])
        XCTAssertFalse(held.hasAttribute("crypto"))
        XCTAssertEqual(hold.origin.sessionVersion, first.origin.sessionVersion + 1)

        let (holdAnswer, bobHeld) = try bob.receiveOffer(hold)
        XCTAssertEqual(holdAnswer.media[0].setupRole(in: holdAnswer), .active, "Bob stays the client")
        XCTAssertEqual(holdAnswer.media[0].directionAttribute, .recvonly)
        XCTAssertEqual(
            SDPICEParameters(media: holdAnswer.media[0], session: holdAnswer)?.password,
            SDPICEParameters(media: firstAnswer.media[0], session: firstAnswer)?.password)
        XCTAssertEqual(bobHeld.dtls?.isClient, true)
        XCTAssertEqual(bobHeld.ice?.isControlling, false)
        let aliceHeld = try alice.receiveAnswer(holdAnswer)
        XCTAssertEqual(aliceHeld.direction, .sendonly)
        XCTAssertEqual(aliceHeld.dtls?.isClient, false)
        XCTAssertEqual(aliceHeld.ice?.isControlling, true)

        // Bob resumes with his own re-offer: Alice, the DTLS server, answers passive, and the ICE
        // roles stay as the first exchange set them.
        let resume = try parse(try bob.makeResumeOffer().text)
        XCTAssertEqual(resume.media[0].setupRole(in: resume), .actpass)
        XCTAssertEqual(resume.media[0].fingerprints(in: resume), [fingerprintB])
        XCTAssertEqual(SDPICEParameters(media: resume.media[0], session: resume)?.usernameFragment, "bobUF")
        XCTAssertEqual(resume.media[0].mid, "0")
        let (resumeAnswer, aliceResumed) = try alice.receiveOffer(resume)
        XCTAssertEqual(resumeAnswer.media[0].setupRole(in: resumeAnswer), .passive, "Alice keeps the server role")
        XCTAssertEqual(aliceResumed.dtls?.isClient, false)
        XCTAssertEqual(aliceResumed.ice?.isControlling, true, "still controlling as the answerer")
        let bobResumed = try bob.receiveAnswer(resumeAnswer)
        XCTAssertEqual(bobResumed.dtls?.isClient, true)
        XCTAssertEqual(bobResumed.ice?.isControlling, false, "still controlled as the offerer")
        XCTAssertEqual(bobResumed.direction, .sendrecv)
    }

    func testReOffersThatWouldSwapRolesOrKeyExchangeAreRefused() throws {
        var alice = SDPOfferAnswer(capabilities: capabilities())
        var bob = SDPOfferAnswer(capabilities: bobCapabilities)
        _ = try negotiate(&alice, &bob)

        // Bob is the DTLS client: an offer that says active wants that role too.
        var swap = try alice.makeResumeOffer()
        swap.media[0].attributes = swap.media[0].attributes.map { $0.name == "setup" ? SDPAttribute(name: "setup", value: "active") : $0 }
        let before = bob.state
        assertRefused(try bob.receiveOffer(swap), .dtlsSetupRefused("a=setup:active would swap the roles of the DTLS association in force"))
        XCTAssertEqual(bob.state, before)
        alice.rollbackOffer()

        // An answer that swaps the roles of the association in force.
        let reOffer = try alice.makeResumeOffer()
        var (answer, _) = try bob.receiveOffer(reOffer)
        var aliceCopy = alice
        answer.media[0].attributes = answer.media[0].attributes.map {
            $0.name == "setup" ? SDPAttribute(name: "setup", value: "passive") : $0
        }
        assertAnswerMismatch(try aliceCopy.receiveAnswer(answer))
        alice.rollbackOffer()

        // A running DTLS stream cannot move to SDES.
        let key = "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR"
        let sdes = try parse(
            [
                "v=0", "o=- 10 11 IN IP4 192.0.2.10", "s=-", "c=IN IP4 192.0.2.10", "t=0 0",
                "m=audio 4000 RTP/SAVP 0", "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key)",
            ].map { $0 + "\r\n" }.joined())
        assertRefused(try bob.receiveOffer(sdes), .dtlsRequired)

        // Nor a running SDES stream to DTLS.
        var carol = SDPOfferAnswer(capabilities: bobCapabilities)
        _ = try carol.receiveOffer(sdes)
        assertRefused(try carol.receiveOffer(try parse(WebRTCSDPSamples.chromiumOffer)), .dtlsNotEnabled)
    }

    // MARK: ICE roles

    func testAnICELitePeerMakesUsControllingEvenAsAnswerer() throws {
        let lite = try edited(WebRTCSDPSamples.chromiumOffer, adding: ["a=ice-lite"], atSessionLevel: true)
        var bob = SDPOfferAnswer(capabilities: bobCapabilities)
        let media = try bob.receiveOffer(lite).media
        XCTAssertEqual(media.ice?.remote.isLite, true)
        XCTAssertEqual(media.ice?.isControlling, true)

        var full = SDPOfferAnswer(capabilities: bobCapabilities)
        XCTAssertEqual(try full.receiveOffer(try parse(WebRTCSDPSamples.chromiumOffer)).media.ice?.isControlling, false)
    }
}
