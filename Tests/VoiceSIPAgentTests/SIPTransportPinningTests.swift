import Crypto
import NIOCore
import NIOSSL
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceSupport

/// A pinned public key narrows whom a verified TLS connection may reach: the server's
/// certificate must carry one of the pinned keys (SHA-256 of its SubjectPublicKeyInfo).
final class SIPTransportPinningTests: SIPTransportTestCase {
    /// The fixtures' server key's pin, computed from the certificate file.
    private func serverPin() throws -> [UInt8] {
        let certificate = try XCTUnwrap(try NIOSSLCertificate.fromPEMFile(SIPTransportFixtures.directory + "/server.pem").first)
        return Array(SHA256.hash(data: try certificate.extractPublicKey().toSPKIBytes()))
    }

    private func pinnedClient(_ recorder: SIPTransportEventRecorder, pins: [[UInt8]]) throws -> SIPTransportLayer {
        var configuration = SIPTransportConfiguration()
        configuration.tlsClient = try SIPTransportFixtures.clientTrustingTestCA()
        configuration.pinnedPublicKeyDigests = pins
        return try makeLayer(recorder, configuration: configuration)
    }

    private func listeningServer(_ recorder: SIPTransportEventRecorder) throws -> (SIPTransportLayer, SIPTransportEndpoint) {
        var configuration = SIPTransportConfiguration()
        configuration.tlsServer = try SIPTransportFixtures.server()
        let server = try makeLayer(recorder, configuration: configuration)
        return (server, try server.listen(.tls, host: "127.0.0.1", port: 0).wait())
    }

    func testAServerWithThePinnedKeyIsReached() throws {
        let received = SIPTransportEventRecorder()
        let (_, end) = try listeningServer(received)
        let wrong = [UInt8](repeating: 7, count: 32)
        let client = try pinnedClient(SIPTransportEventRecorder(), pins: [wrong, try serverPin()])
        try client.send(SIPTransportFixtures.options(transport: "TLS"), to: end).wait()
        XCTAssertEqual(received.waitForMessages(1).count, 1)
    }

    func testAServerWithAnotherKeyIsRefusedThoughItsCertificateVerifies() throws {
        let received = SIPTransportEventRecorder()
        let (_, end) = try listeningServer(received)
        let client = try pinnedClient(SIPTransportEventRecorder(), pins: [[UInt8](repeating: 7, count: 32)])
        XCTAssertThrowsError(try client.send(SIPTransportFixtures.options(transport: "TLS"), to: end).wait()) { error in
            let transportError = error as? SIPTransportError
            XCTAssertEqual(transportError?.kind, .tlsFailed, "\(error)")
            XCTAssertTrue("\(error)".contains("matches no pinned key"), "\(error)")
        }
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertTrue(received.waitForMessages(0, timeout: 0.1).isEmpty, "nothing was sent over the refused connection")
    }
}
