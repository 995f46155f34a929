import NIOCore
import NIOSSL
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes
import VoiceSupport

/// A TLS connection's peer is known by the DNS names of a certificate that verified: the
/// server we connected to, or a client that presented one to a listener that verifies them.
final class SIPTransportTLSIdentityTests: SIPTransportTestCase {
    /// A layer whose TLS client trusts the test CA, configured further by `configure`.
    private func makeLayer(_ recorder: SIPTransportEventRecorder, _ configure: (inout SIPTransportConfiguration) throws -> Void) throws -> SIPTransportLayer {
        var configuration = SIPTransportConfiguration()
        configuration.tlsClient = try SIPTransportFixtures.clientTrustingTestCA()
        try configure(&configuration)
        return try makeLayer(recorder, configuration: configuration)
    }

    private func names(_ layer: SIPTransportLayer, _ remote: SIPTransportEndpoint) throws -> Set<String> {
        try layer.eventLoop.submit { layer.verifiedTLSNames(of: remote) }.wait()
    }

    /// A client certificate signed by the test CA: the fixtures' server certificate, which is
    /// also valid for client authentication (DNS:localhost).
    private func presentingClientCertificate(_ configuration: inout SIPTransportConfiguration) throws {
        configuration.tlsClient.certificateChain = try NIOSSLCertificate.fromPEMFile(SIPTransportFixtures.directory + "/server.pem")
            .map { .certificate($0) }
        configuration.tlsClient.privateKey = .privateKey(try NIOSSLPrivateKey(file: SIPTransportFixtures.directory + "/server.key", format: .pem))
    }

    func testTheServerWeConnectedToIsKnownByItsCertificatesNames() throws {
        let a = SIPTransportEventRecorder(), b = SIPTransportEventRecorder()
        let client = try makeLayer(a) { _ in }
        let server = try makeLayer(b) { $0.tlsServer = try SIPTransportFixtures.server(named: true) }
        let endB = try server.listen(.tls, host: "127.0.0.1", port: 0).wait()
        try client.send(SIPTransportFixtures.options(transport: "TLS"), to: endB, serverName: "sip.voice.test").wait()
        let received = b.waitForMessages(1)
        XCTAssertEqual(try names(client, endB), ["sip.voice.test"])
        // The server does not verify clients: the client proved nothing.
        XCTAssertEqual(try names(server, try XCTUnwrap(received.first?.1)), [])
        XCTAssertEqual(try names(client, try SIPTransportEndpoint(transport: .tls, ip: "127.0.0.1", port: 1)), [], "no such connection")
    }

    func testAClientCertificateIsKnownOnlyWhenTheListenerVerifiesIt() throws {
        let server = SIPTransportEventRecorder()
        let listener = try makeLayer(server) {
            var tls = try SIPTransportFixtures.server()
            tls.certificateVerification = .optionalVerification
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(SIPTransportFixtures.directory + "/ca.pem"))
            $0.tlsServer = tls
        }
        let end = try listener.listen(.tls, host: "127.0.0.1", port: 0).wait()
        let proxy = try makeLayer(SIPTransportEventRecorder()) { try self.presentingClientCertificate(&$0) }
        let stranger = try makeLayer(SIPTransportEventRecorder()) { _ in }
        try proxy.send(SIPTransportFixtures.options(transport: "TLS"), to: end).wait()
        try stranger.send(SIPTransportFixtures.options(transport: "TLS"), to: end).wait()
        let sources = server.waitForMessages(2).map(\.1)
        XCTAssertEqual(sources.count, 2)
        let proven = try sources.map { try names(listener, $0) }
        XCTAssertEqual(Set(proven), [["localhost"], []], "the proxy proved its name, the stranger nothing")

        // A listener that does not verify client certificates learns nothing from one.
        let lax = SIPTransportEventRecorder()
        let unverifying = try makeLayer(lax) { $0.tlsServer = try SIPTransportFixtures.server() }
        let laxEnd = try unverifying.listen(.tls, host: "127.0.0.1", port: 0).wait()
        try proxy.send(SIPTransportFixtures.options(transport: "TLS"), to: laxEnd).wait()
        XCTAssertEqual(try names(unverifying, try XCTUnwrap(lax.waitForMessages(1).first?.1)), [])
    }
}
