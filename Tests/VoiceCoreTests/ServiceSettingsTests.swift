import Crypto
import Foundation
import NIOSSL
import XCTest

import VoiceCore
import VoiceService
@testable import VoiceSIPAgent

/// What an app and a service set beside the call API: TLS settings (trust, certificate, pins)
/// and a service's server settings, each checked when it is made or applied.
final class ServiceSettingsTests: XCTestCase {
    private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Fixtures/tls-netns"

    /// The fixture certificate's pin, as `openssl … | base64` prints it.
    private func fixturePin() throws -> String {
        let certificate = try XCTUnwrap(try NIOSSLCertificate.fromPEMFile(fixtures + "/peer.pem").first)
        return Data(SHA256.hash(data: try certificate.extractPublicKey().toSPKIBytes())).base64EncodedString()
    }

    func testPinsAreReadWithOrWithoutTheirPrefix() throws {
        let pin = try fixturePin()
        var transport = SIPTransportConfiguration()
        try TLSSettings(pinnedPublicKeys: ["sha256//" + pin, pin]).apply(to: &transport)
        XCTAssertEqual(transport.pinnedPublicKeyDigests.count, 2)
        XCTAssertEqual(transport.pinnedPublicKeyDigests[0], Array(Data(base64Encoded: pin) ?? Data()))
        XCTAssertEqual(transport.pinnedPublicKeyDigests[0], transport.pinnedPublicKeyDigests[1])
    }

    func testBadTLSSettingsAreTypedErrorsWhenTheClientIsMade() {
        let cases: [(TLSSettings, String)] = [
            (TLSSettings(pinnedPublicKeys: ["sha256//not base64!"]), "not a base64 SHA-256 digest"),
            (TLSSettings(pinnedPublicKeys: [Data(repeating: 1, count: 20).base64EncodedString()]), "not a base64 SHA-256 digest"),
            (TLSSettings(certificateFile: fixtures + "/peer.pem"), "go together"),
            (TLSSettings(trustedCertificateFiles: ["/nonexistent/ca.pem"]), "TLS:"),
        ]
        for (settings, reason) in cases {
            var configuration = VoiceClientConfiguration(identity: "alice", domain: "127.0.0.1", registers: false)
            configuration.tls = settings
            XCTAssertThrowsError(try VoiceClient(configuration: configuration)) { error in
                let voiceError = error as? VoiceError
                XCTAssertEqual(voiceError?.code, .malformedRequest)
                XCTAssertTrue(voiceError?.failureReason?.contains(reason) == true, "\(error)")
            }
        }
    }

    func testACertificateAndKeyServeBothSides() throws {
        var transport = SIPTransportConfiguration()
        try TLSSettings(
            trustedCertificateFiles: [fixtures + "/ca.pem"], certificateFile: fixtures + "/peer.pem", privateKeyFile: fixtures + "/peer.key"
        ).apply(to: &transport)
        XCTAssertNotNil(transport.tlsServer, "the certificate is the listener's")
        XCTAssertEqual(transport.tlsClient.certificateChain.count, 1, "and the client certificate")
        XCTAssertEqual(transport.tlsClient.additionalTrustRoots.count, 1)
    }

    func testServerAddressesAndNamesAreCheckedWhenMade() throws {
        XCTAssertEqual(try VoiceServerSettings.TrustedAddress("192.0.2.10").description, "192.0.2.10")
        XCTAssertEqual(try VoiceServerSettings.TrustedAddress("[2001:db8::1]").description, "2001:db8::1")
        XCTAssertEqual(try VoiceServerSettings.TLSName("Proxy.Example.COM").description, "proxy.example.com")
        for bad in ["proxy.example.com", "192.0.2", "", "1.2.3.4:5060"] {
            XCTAssertThrowsError(try VoiceServerSettings.TrustedAddress(bad), bad)
        }
        for bad in ["", "-a.example.com", "a..b", "a b.com", String(repeating: "a", count: 64) + ".com", "é.com"] {
            XCTAssertThrowsError(try VoiceServerSettings.TLSName(bad), bad)
        }
    }

    /// A service that takes calls only from its proxy refuses a caller who reaches it directly.
    func testAServiceTrustingOnlyItsProxyRefusesOtherCallers() throws {
        var server = VoiceServerSettings()
        server.trustedAddresses = [try .init("192.0.2.10")]
        let service = try VoiceClient(
            configuration: VoiceClientConfiguration(identity: "ivr", domain: "127.0.0.1", registers: false), server: server)
        let caller = try VoiceClient(configuration: VoiceClientConfiguration(identity: "caller", domain: "127.0.0.1", registers: false))
        defer {
            caller.shutdown()
            service.shutdown()
        }
        let delegate = RecordingCallDelegate()
        _ = caller.connect(
            options: ConnectOptions { builder in
                builder.params = ["To": "sip:ivr@127.0.0.1:\(service.localEndpoint.port)"]
                builder.delegateQueue = delegate.queue
            },
            delegate: delegate)
        XCTAssertEqual(delegate.waitForEnd(), [.failed(.forbidden)])
    }
}
