import VoiceSIPTestVectors
import XCTest

@testable import VoiceSIP

/// ICE and DTLS-SRTP attributes (RFC 8839, RFC 8122, RFC 4145/5763) read from SDP that real
/// WebRTC peers wrote, and what malformed values get.
final class SDPICEAttributeTests: XCTestCase {
    private func audio(_ text: String) throws -> (SDPMediaDescription, SDPSessionDescription) {
        let session = try SDPSessionDescription(parsing: Array(text.utf8))
        return (try XCTUnwrap(session.media.first { $0.media == "audio" }), session)
    }

    func testEverySampleHasICECredentialsCandidatesAFingerprintAndASetupRole() throws {
        for (name, text) in WebRTCSDPSamples.all {
            let (media, session) = try audio(text)
            XCTAssertTrue(media.isDTLSSRTP, name)
            XCTAssertFalse(media.isSecureRTP, "\(name): not SDES")
            let ice = try XCTUnwrap(SDPICEParameters(media: media, session: session), name)
            XCTAssertFalse(ice.candidates.isEmpty, name)
            XCTAssertEqual(ice.candidates.count, media.attributeValues("candidate").count, "\(name): every candidate line parses")
            for candidate in ice.candidates {
                XCTAssertEqual(SDPICECandidate(parsing: Substring(candidate.value)), candidate, "\(name): round trip")
            }
            XCTAssertFalse(media.fingerprints(in: session).isEmpty, name)
            XCTAssertNotNil(media.setupRole(in: session), name)
        }
    }

    func testChromiumsOffer() throws {
        let (media, session) = try audio(WebRTCSDPSamples.chromiumOffer)
        let ice = try XCTUnwrap(SDPICEParameters(media: media, session: session))
        XCTAssertEqual(ice.usernameFragment, "TxD8")
        XCTAssertEqual(ice.password, "PsWCSkHQZxEX/VGFJCnIe45g")
        XCTAssertEqual(ice.options, ["trickle"])
        XCTAssertFalse(ice.isLite)
        XCTAssertFalse(ice.endOfCandidates)
        XCTAssertEqual(ice.candidates.map(\.kind), [.host, .host, .host, .host])
        let tcp = try XCTUnwrap(ice.candidates.first { !$0.isUDP })
        XCTAssertEqual(tcp.tcpType, "active")
        XCTAssertEqual(tcp.port, 9)
        XCTAssertEqual(ice.candidates[1].address, "fd00::2")
        XCTAssertEqual(ice.candidates[0].priority, 2_122_194_687)
        XCTAssertEqual(ice.candidates[0].extensions.map(\.name), ["generation", "network-id"])
        XCTAssertEqual(media.setupRole(in: session), .actpass)
        let fingerprint = try XCTUnwrap(media.fingerprints(in: session).first)
        XCTAssertEqual(fingerprint.hashFunction, "sha-256")
        XCTAssertEqual(fingerprint.digest.prefix(3), [0x7D, 0xBA, 0xE5])
        XCTAssertEqual(
            fingerprint.value, "sha-256 7D:BA:E5:8F:C0:32:92:7E:9B:F2:DB:B3:55:BB:8C:6B:9A:BB:6B:73:E5:5A:7E:A8:23:76:72:44:CC:D2:7F:20")
        XCTAssertTrue(media.hasAttribute("rtcp-mux"))
    }

    func testARelayedCandidateAndOtherPeersQuirks() throws {
        let (relayMedia, relaySession) = try audio(WebRTCSDPSamples.chromiumRelayOnlyOffer)
        let relay = try XCTUnwrap(SDPICEParameters(media: relayMedia, session: relaySession)?.candidates.first)
        XCTAssertEqual(relay.kind, .relayed)
        XCTAssertEqual(relay.relatedAddress, "0.0.0.0")
        XCTAssertEqual(relay.relatedPort, 0)
        XCTAssertEqual(relay.priority, 58_597_375)

        // baresip writes the hash name in capitals and UDP in capitals.
        let (bareMedia, bareSession) = try audio(WebRTCSDPSamples.baresipICEDTLSOffer)
        XCTAssertTrue(bareMedia.fingerprints(in: bareSession).allSatisfy { $0.hashFunction == "sha-256" || $0.hashFunction.hasPrefix("sha-") })
        XCTAssertTrue(try XCTUnwrap(SDPICEParameters(media: bareMedia, session: bareSession)).candidates.allSatisfy(\.isUDP))

        // aiortc lists several hash functions and ends its candidates.
        let (aioMedia, aioSession) = try audio(WebRTCSDPSamples.aiortcOffer)
        XCTAssertGreaterThan(Set(aioMedia.fingerprints(in: aioSession).map(\.hashFunction)).count, 1)
    }

    func testMalformedCandidatesAreRefused() {
        let good = "1 1 udp 2130706431 192.0.2.1 5000 typ host"
        XCTAssertNotNil(SDPICECandidate(parsing: Substring(good)))
        for bad in [
            "", "1", "1 1 udp 2130706431 192.0.2.1 5000", "1 1 udp 2130706431 192.0.2.1 5000 typ", "1 1 udp 2130706431 192.0.2.1 5000 typ bogus",
            "1 0 udp 2130706431 192.0.2.1 5000 typ host", "1 1 udp 0 192.0.2.1 5000 typ host", "1 1 udp 4294967296 192.0.2.1 5000 typ host",
            "1 1 udp 2130706431 192.0.2.1 65536 typ host", "1 1 udp 2130706431 192.0.2.1 5000 typ host raddr", "1 1 udp 2130706431 192.0.2.1 5000 typ srflx raddr 10.0.0.1",
            "1 1 udp 2130706431 192.0.2.1 5000 typ srflx rport 1 raddr 10.0.0.1", "1 1 udp 2130706431 192.0.2.1 5000 typ host generation",
            "1 1 udp 2130706431 192.0.2.1 5000 typ host  generation 0", "1 1 udp 2130706431 192.0.2.1 5000 typ host ", "f*o 1 udp 1 192.0.2.1 5000 typ host",
            String(repeating: "a", count: 33) + " 1 udp 1 192.0.2.1 5000 typ host", "1 1 udp 1 192.0.2.1;evil 5000 typ host",
        ] {
            XCTAssertNil(SDPICECandidate(parsing: Substring(bad)), bad)
        }
        let reflexive = SDPICECandidate(parsing: "2 1 UDP 1694498815 203.0.113.7 40000 typ srflx raddr 10.0.0.2 rport 5000 generation 0")
        XCTAssertEqual(reflexive?.relatedAddress, "10.0.0.2")
        XCTAssertEqual(reflexive?.value, "2 1 UDP 1694498815 203.0.113.7 40000 typ srflx raddr 10.0.0.2 rport 5000 generation 0")
        XCTAssertEqual(SDPICECandidate(parsing: "3 1 udp 1 8b3f2c0e-1111-4c4c-9c9c-0123456789ab.local 5000 typ host")?.address,
                       "8b3f2c0e-1111-4c4c-9c9c-0123456789ab.local", "an mDNS name")
    }

    func testMalformedFingerprintsCredentialsAndRoles() throws {
        let digest = (0..<32).map { String(format: "%02x", $0) }.joined(separator: ":")
        XCTAssertEqual(SDPFingerprint(parsing: Substring("SHA-256 " + digest))?.digest, Array(0..<32))
        for bad in ["sha-256", "sha-256 ", "sha-256 " + digest + ":00", "sha-256 " + String(digest.dropLast(3)), "sha-999 " + digest,
                    "sha-256 " + digest.replacingOccurrences(of: ":", with: "-"), "sha-256 0:" + digest, "sha-1 " + digest, "sha-256 " + digest + ":"] {
            XCTAssertNil(SDPFingerprint(parsing: Substring(bad)), bad)
        }
        XCTAssertEqual(SDPSetupRole(parsing: "ACTPASS"), .actpass)
        XCTAssertNil(SDPSetupRole(parsing: "both"))

        // Credentials too short, or with characters ICE does not allow, mean no ICE.
        var (media, session) = try audio(WebRTCSDPSamples.chromiumOffer)
        media.attributes = media.attributes.map { $0.name == "ice-pwd" ? SDPAttribute(name: "ice-pwd", value: "short") : $0 }
        XCTAssertNil(SDPICEParameters(media: media, session: session))
        (media, session) = try audio(WebRTCSDPSamples.chromiumOffer)
        media.attributes = media.attributes.map { $0.name == "ice-ufrag" ? SDPAttribute(name: "ice-ufrag", value: "ab:cd") : $0 }
        XCTAssertNil(SDPICEParameters(media: media, session: session))
    }

    func testParametersWriteTheAttributesTheyWereReadFrom() throws {
        let (media, session) = try audio(WebRTCSDPSamples.aiortcOffer)
        let ice = try XCTUnwrap(SDPICEParameters(media: media, session: session))
        var rebuilt = media
        rebuilt.attributes = ice.mediaAttributes
        XCTAssertEqual(SDPICEParameters(media: rebuilt, session: session), ice)
    }
}
