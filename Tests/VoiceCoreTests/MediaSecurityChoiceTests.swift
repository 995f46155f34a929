import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceSIP

/// One `MediaSecurity` value decides both what calls offer and accept and whether SDES keys may
/// travel over clear-text signaling; each of the old switches' combinations has its case.
final class MediaSecurityChoiceTests: XCTestCase {
    private func policy(_ security: MediaSecurity) -> SDPEncryptionPolicy {
        var configuration = VoiceClientConfiguration(identity: "alice", domain: "127.0.0.1")
        configuration.mediaSecurity = security
        configuration.srtpSuites = [.aeadAES128GCM]
        return VoiceClient.encryptionPolicy(configuration)
    }

    func testEachCaseMeansOneOfferAndAnswerPolicy() {
        XCTAssertEqual(policy(.automatic), .automatic(suites: [.aeadAES128GCM]))
        XCTAssertEqual(policy(.automaticOverUnencryptedSignaling), .automatic(suites: [.aeadAES128GCM]))
        XCTAssertEqual(policy(.dtls), .dtlsSRTP)
        XCTAssertEqual(policy(.sdes), .srtp(suites: [.aeadAES128GCM]))
        XCTAssertEqual(policy(.sdesOverUnencryptedSignaling), .srtp(suites: [.aeadAES128GCM]))
        XCTAssertEqual(policy(.unencrypted), .unencrypted)
    }

    func testOnlyTheOverUnencryptedSignalingCasesLetKeysTravelInClearText() {
        let open: [MediaSecurity] = [.automaticOverUnencryptedSignaling, .sdesOverUnencryptedSignaling]
        for security: MediaSecurity in [.automatic, .dtls, .sdes, .automaticOverUnencryptedSignaling, .sdesOverUnencryptedSignaling, .unencrypted] {
            XCTAssertEqual(security.allowsKeysOverUnencryptedSignaling, open.contains(security), "\(security)")
        }
    }

    func testTheCommandLineNamesEachCase() {
        let names = [
            "automatic": MediaSecurity.automatic, "dtls": .dtls, "sdes": .sdes, "unencrypted": .unencrypted,
            "automatic-unencrypted-signaling": .automaticOverUnencryptedSignaling, "sdes-unencrypted-signaling": .sdesOverUnencryptedSignaling,
        ]
        for (name, security) in names { XCTAssertEqual(MediaSecurity(name: name), security, name) }
        XCTAssertNil(MediaSecurity(name: "srtp"))
    }
}
