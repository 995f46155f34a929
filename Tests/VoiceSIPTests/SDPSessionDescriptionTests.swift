import VoiceMediaTypes
import VoiceSupport
import XCTest
@testable import VoiceSIP

final class SDPSessionDescriptionTests: XCTestCase {
    private func crlf(_ lines: [String]) -> String { lines.map { $0 + "\r\n" }.joined() }

    /// RFC 4566 §5 / RFC 8866 §5 example session.
    func testRFC4566ExampleSession() throws {
        let text = crlf([
            "v=0",
            "o=jdoe 2890844526 2890842807 IN IP4 10.47.16.5",
            "s=SDP Seminar",
            "i=A Seminar on the session description protocol",
            "u=http://www.example.com/seminars/sdp.pdf",
            "e=j.doe@example.com (Jane Doe)",
            "c=IN IP4 224.2.17.12/127",
            "t=2873397496 2873404696",
            "a=recvonly",
            "m=audio 49170 RTP/AVP 0",
            "m=video 51372 RTP/AVP 99",
            "a=rtpmap:99 h263-1998/90000",
        ])
        let sdp = try SDPSessionDescription(parsing: text)
        XCTAssertEqual(
            sdp.origin,
            SDPOrigin(
                username: "jdoe", sessionID: "2890844526", sessionVersion: 2890842807,
                address: "10.47.16.5"))
        XCTAssertEqual(sdp.sessionName, "SDP Seminar")
        XCTAssertEqual(sdp.information, "A Seminar on the session description protocol")
        XCTAssertEqual(sdp.uri, "http://www.example.com/seminars/sdp.pdf")
        XCTAssertEqual(sdp.emails, ["j.doe@example.com (Jane Doe)"])
        XCTAssertEqual(sdp.connection, SDPConnection(address: "224.2.17.12", suffix: "127"))
        XCTAssertEqual(sdp.timings, [SDPTiming(start: 2873397496, stop: 2873404696)])
        XCTAssertEqual(sdp.directionAttribute, .recvonly)
        XCTAssertEqual(sdp.media.count, 2)
        XCTAssertEqual(sdp.media[0].mediaLineValue, "audio 49170 RTP/AVP 0")
        XCTAssertEqual(sdp.media[0].rtpMap(for: 0), SDPRTPMap(payloadType: 0, encodingName: "PCMU", clockRate: 8000))
        XCTAssertEqual(sdp.direction(of: sdp.media[0]), .recvonly)
        XCTAssertEqual(sdp.media[1].rtpMaps, [SDPRTPMap(payloadType: 99, encodingName: "h263-1998", clockRate: 90000)])
        // The serializer writes back the same text.
        XCTAssertEqual(sdp.text, text)
    }

    /// RFC 3264 §10.1 offer and answer.
    func testRFC3264OfferAndAnswerParse() throws {
        let offer = try SDPSessionDescription(
            parsing: crlf([
                "v=0", "o=alice 2890844526 2890844526 IN IP4 host.atlanta.example.com", "s=",
                "c=IN IP4 host.atlanta.example.com", "t=0 0",
                "m=audio 49170 RTP/AVP 0 8 97", "a=rtpmap:0 PCMU/8000", "a=rtpmap:8 PCMA/8000", "a=rtpmap:97 iLBC/8000",
                "m=video 51372 RTP/AVP 31 32", "a=rtpmap:31 H261/90000", "a=rtpmap:32 MPV/90000",
            ]))
        XCTAssertEqual(offer.sessionName, "")
        XCTAssertEqual(offer.media[0].formats, ["0", "8", "97"])
        XCTAssertEqual(offer.media[0].rtpMap(for: 97)?.encodingName, "iLBC")
        XCTAssertEqual(offer.connection(of: offer.media[1])?.address, "host.atlanta.example.com")
        let answer = try SDPSessionDescription(
            parsing: crlf([
                "v=0", "o=bob 2808844564 2808844564 IN IP4 host.biloxi.example.com", "s=",
                "c=IN IP4 host.biloxi.example.com", "t=0 0",
                "m=audio 49174 RTP/AVP 0", "a=rtpmap:0 PCMU/8000", "m=video 49170 RTP/AVP 32", "a=rtpmap:32 MPV/90000",
            ]))
        XCTAssertEqual(answer.media.map(\.port), [49174, 49170])
    }

    /// RFC 4568 §4 example: the crypto line is kept; its FEC_ORDER parameter makes VoiceMedia skip it.
    func testRFC4568ExampleKeepsCryptoLine() throws {
        let sdp = try SDPSessionDescription(
            parsing: crlf([
                "v=0", "o=sam 2890844526 2890842807 IN IP4 10.47.16.5", "s=SRTP Discussion",
                "i=A discussion of Secure RTP", "u=http://www.example.com/seminars/srtp.pdf",
                "e=marge@example.com (Marge Simpson)", "c=IN IP4 168.2.17.12", "t=2873397496 2873404696",
                "m=audio 49170 RTP/SAVP 0",
                "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|1:4 FEC_ORDER=FEC_SRTP",
            ]))
        XCTAssertTrue(sdp.media[0].isSecureRTP)
        XCTAssertEqual(sdp.media[0].attributeValues("crypto").count, 1)
        XCTAssertEqual(sdp.media[0].cryptoAttributes, [])
    }

    /// RFC 4568 §6.2 style crypto line that VoiceMedia implements.
    func testRFC4568CryptoAttributeIsTyped() throws {
        let sdp = try SDPSessionDescription(
            parsing: crlf([
                "v=0", "o=- 1 1 IN IP4 192.0.2.1", "s=-", "c=IN IP4 192.0.2.1", "t=0 0",
                "m=audio 49170 RTP/SAVP 0",
                "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR|2^20|1:4",
                "a=crypto:2 AES_CM_128_HMAC_SHA1_32 inline:NzB4d1BINUAvLEw6UzF3WSJ+PSdFcGdUJShpX1Zj|2^20|1:4",
            ]))
        let cryptos = sdp.media[0].cryptoAttributes
        XCTAssertEqual(cryptos.map(\.tag), [1, 2])
        XCTAssertEqual(cryptos.map(\.suite), [.aesCM128HmacSHA1_80, .aesCM128HmacSHA1_32])
        XCTAssertEqual(cryptos[0].keyMaterial.lifetime, 1 << 20)
    }

    /// A baresip-style Opus offer over SRTP with rtcp-mux, LF line ends.
    func testBaresipStyleOffer() throws {
        let text =
            [
                "v=0", "o=- 1234567890 987654321 IN IP6 2001:db8::1", "s=-", "c=IN IP6 2001:db8::1", "t=0 0",
                "m=audio 10000 RTP/SAVP 111 0 8 101",
                "b=AS:64",
                "a=rtpmap:111 opus/48000/2", "a=fmtp:111 stereo=1;sprop-stereo=1;useinbandfec=1",
                "a=rtpmap:101 telephone-event/8000", "a=fmtp:101 0-15",
                "a=rtcp-mux", "a=sendrecv", "a=label:1", "a=ssrc:2938475 cname:abc",
                "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR",
                "a=ptime:20",
            ].joined(separator: "\n") + "\n"
        let sdp = try SDPSessionDescription(parsing: text)
        let audio = sdp.media[0]
        XCTAssertEqual(sdp.connection?.addressType, "IP6")
        XCTAssertEqual(audio.bandwidths, [SDPBandwidth(type: "AS", bandwidth: 64)])
        XCTAssertEqual(audio.rtpMap(for: 111), SDPRTPMap(payloadType: 111, encodingName: "opus", clockRate: 48000, channels: 2))
        XCTAssertEqual(audio.formatParameters(for: "111")?["useinbandfec"], "1")
        XCTAssertEqual(audio.formatParameters(for: "101")?.parameters, "0-15")
        XCTAssertTrue(audio.rtcpMux)
        XCTAssertEqual(audio.ptime, 20)
        XCTAssertEqual(audio.directionAttribute, .sendrecv)
        XCTAssertEqual(audio.cryptoAttributes.count, 1)
        XCTAssertEqual(audio.attributeValues("ssrc"), ["2938475 cname:abc"])
    }

    /// An Asterisk-style plain RTP offer with a=rtcp, maxptime, decimal ptime.
    func testAsteriskStyleOffer() throws {
        let sdp = try SDPSessionDescription(
            parsing: crlf([
                "v=0", "o=- 1970418367 1970418367 IN IP4 203.0.113.10", "s=Asterisk", "c=IN IP4 203.0.113.10",
                "t=0 0", "m=audio 18852 RTP/AVP 0 8 3 101", "a=rtpmap:0 PCMU/8000", "a=rtpmap:8 PCMA/8000",
                "a=rtpmap:3 GSM/8000", "a=rtpmap:101 telephone-event/8000", "a=fmtp:101 0-16", "a=ptime:20.0",
                "a=maxptime:150", "a=rtcp:18853 IN IP4 203.0.113.11", "a=sendrecv",
            ]))
        let audio = sdp.media[0]
        XCTAssertEqual(audio.ptime, 20)
        XCTAssertEqual(audio.maxptime, 150)
        XCTAssertEqual(audio.rtcp, SDPRTCPAttribute(port: 18853, connection: SDPConnection(address: "203.0.113.11")))
        XCTAssertFalse(audio.rtcpMux)
    }

    /// A Twilio-style answer: media-level c=, PCMU + telephone-event.
    func testTwilioStyleAnswerWithMediaLevelConnection() throws {
        let sdp = try SDPSessionDescription(
            parsing: crlf([
                "v=0", "o=root 1234 1235 IN IP4 54.172.60.1", "s=Twilio Media Gateway", "t=0 0",
                "m=audio 13456 RTP/SAVP 0 101", "c=IN IP4 54.172.60.2", "a=rtpmap:0 PCMU/8000",
                "a=rtpmap:101 telephone-event/8000", "a=fmtp:101 0-16", "a=sendrecv", "a=rtcp:13457",
                "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR",
            ]))
        XCTAssertNil(sdp.connection)
        XCTAssertEqual(sdp.connection(of: sdp.media[0])?.address, "54.172.60.2")
        XCTAssertEqual(sdp.media[0].rtcp?.port, 13457)
    }

    func testSerializerRoundTripsBuiltDescription() throws {
        let crypto = SDESCryptoAttribute(tag: 1, keyMaterial: .random(for: .aesCM128HmacSHA1_80))
        let sdp = SDPSessionDescription(
            origin: SDPOrigin(sessionID: "42", sessionVersion: 7, address: "192.0.2.5"),
            connection: SDPConnection(address: "192.0.2.5"),
            media: [
                SDPMediaDescription(
                    media: "audio", port: 4000, proto: "RTP/SAVP", formats: ["111", "0"],
                    attributes: [
                        .rtpmap(SDPRTPMap(payloadType: 111, encodingName: "opus", clockRate: 48000, channels: 2)),
                        .ptime(20), .direction(.sendonly), .rtcpMux, .crypto(crypto),
                    ])
            ])
        XCTAssertTrue(
            sdp.text.hasPrefix("v=0\r\no=- 42 7 IN IP4 192.0.2.5\r\ns=-\r\nc=IN IP4 192.0.2.5\r\nt=0 0\r\nm=audio 4000 RTP/SAVP 111 0\r\n"))
        XCTAssertTrue(sdp.text.contains("a=sendonly\r\na=rtcp-mux\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:"))
        let parsed = try SDPSessionDescription(parsing: sdp.text)
        XCTAssertEqual(parsed, sdp)
        XCTAssertEqual(parsed.media[0].cryptoAttributes, [crypto])
    }

    func testParsesFromBytesAndAcceptsTrailingBlankLines() throws {
        let text = "v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=-\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\nm=audio 0 RTP/AVP 0\r\n\r\n"
        let sdp = try SDPSessionDescription(parsing: Array(text.utf8))
        XCTAssertEqual(sdp.media.first?.port, 0)
    }

    func testDirectionMirrorsAndAnswers() {
        XCTAssertEqual(SDPDirection.sendonly.mirrored, .recvonly)
        XCTAssertEqual(SDPDirection.recvonly.mirrored, .sendonly)
        XCTAssertEqual(SDPDirection.inactive.mirrored, .inactive)
        XCTAssertEqual(SDPDirection.sendrecv.answer(wanting: .sendrecv), .sendrecv)
        XCTAssertEqual(SDPDirection.sendonly.answer(wanting: .sendrecv), .recvonly)
        XCTAssertEqual(SDPDirection.inactive.answer(wanting: .sendrecv), .inactive)
        XCTAssertEqual(SDPDirection.sendrecv.answer(wanting: .sendonly), .sendonly)
        XCTAssertEqual(SDPDirection.recvonly.answer(wanting: .recvonly), .inactive)
    }
}
