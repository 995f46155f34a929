import VoiceMediaTypes
import VoiceSupport
import XCTest

@testable import VoiceDTLS

/// Two associations handshaking through memory: what one sends, the other receives.
final class DTLSAssociationTests: XCTestCase {
    private static let alice = try! DTLSCertificate.generate(commonName: "alice")
    private static let bob = try! DTLSCertificate.generate(commonName: "bob")

    /// Delivers every `.send` from one side to the other until neither sends; returns what each
    /// side reported besides sends.
    @discardableResult
    private func exchange(
        _ client: DTLSAssociation, _ server: DTLSAssociation, first: [DTLSAction], now: MediaTime = .zero,
        drop: (Int, [UInt8]) -> Bool = { _, _ in false }
    ) -> (client: [DTLSAction], server: [DTLSAction]) {
        var toServer = first.compactMap { if case .send(let bytes) = $0 { bytes } else { nil } }
        var toClient: [[UInt8]] = []
        var clientEvents = first.filter { if case .send = $0 { false } else { true } }
        var serverEvents: [DTLSAction] = []
        var sent = 0
        while !toServer.isEmpty || !toClient.isEmpty {
            for datagram in toServer {
                sent += 1
                if drop(sent, datagram) { continue }
                for action in server.receive(datagram, now: now) {
                    if case .send(let bytes) = action { toClient.append(bytes) } else { serverEvents.append(action) }
                }
            }
            toServer = []
            for datagram in toClient {
                sent += 1
                if drop(sent, datagram) { continue }
                for action in client.receive(datagram, now: now) {
                    if case .send(let bytes) = action { toServer.append(bytes) } else { clientEvents.append(action) }
                }
            }
            toClient = []
        }
        return (clientEvents, serverEvents)
    }

    private func pair(
        clientExpects: [DTLSFingerprint]? = [DTLSAssociationTests.bob.fingerprint],
        serverExpects: [DTLSFingerprint]? = [DTLSAssociationTests.alice.fingerprint]
    ) throws -> (DTLSAssociation, DTLSAssociation) {
        let client = try DTLSAssociation(certificate: Self.alice, role: .client, remoteFingerprints: clientExpects)
        let server = try DTLSAssociation(certificate: Self.bob, role: .server, remoteFingerprints: serverExpects)
        return (client, server)
    }

    private func keys(_ events: [DTLSAction]) -> DTLSSRTPKeys? {
        for case .connected(let keys) in events { return keys }
        return nil
    }

    func testHandshakeGivesBothSidesMirroredSRTPKeysForAGCMProfile() throws {
        let (client, server) = try pair()
        XCTAssertEqual(server.start(now: .zero), [], "a server waits for the ClientHello")
        let hello = client.start(now: .zero)
        XCTAssertEqual(hello.count, 1)
        guard case .send(let clientHello) = hello.first else { return XCTFail("no ClientHello") }
        XCTAssertEqual(clientHello.first, 22, "a DTLS handshake record (RFC 7983: 20-63)")
        XCTAssertLessThanOrEqual(clientHello.count, 1200)

        let events = exchange(client, server, first: hello)
        let clientKeys = try XCTUnwrap(keys(events.client))
        let serverKeys = try XCTUnwrap(keys(events.server))
        XCTAssertEqual(clientKeys.suite, .aeadAES128GCM, "our first use_srtp profile")
        XCTAssertEqual(clientKeys.local, serverKeys.remote)
        XCTAssertEqual(clientKeys.remote, serverKeys.local)
        XCTAssertNotEqual(clientKeys.local, clientKeys.remote, "each direction has its own key")
        XCTAssertEqual(clientKeys.local.keyAndSalt.count, 28)
        XCTAssertEqual(clientKeys.version, "DTLSv1.2")
        XCTAssertEqual(clientKeys.cipher, "ECDHE-ECDSA-AES128-GCM-SHA256")
        XCTAssertEqual(clientKeys.peerFingerprint, Self.bob.fingerprint)
        XCTAssertEqual(serverKeys.peerFingerprint, Self.alice.fingerprint)
        if case .connected = client.state {} else { XCTFail("client \(client.state)") }
        XCTAssertNil(client.nextDeadline, "no timer runs once connected")
    }

    func testEveryHandshakeDatagramFitsTheMTU() throws {
        var configuration = DTLSConfiguration()
        configuration.mtu = 600
        let client = try DTLSAssociation(certificate: Self.alice, role: .client, remoteFingerprints: [Self.bob.fingerprint], configuration: configuration)
        let server = try DTLSAssociation(certificate: Self.bob, role: .server, remoteFingerprints: [Self.alice.fingerprint], configuration: configuration)
        var largest = 0
        let events = exchange(client, server, first: client.start(now: .zero)) { _, datagram in
            largest = max(largest, datagram.count)
            return false
        }
        XCTAssertNotNil(keys(events.client))
        XCTAssertLessThanOrEqual(largest, 600)
    }

    func testAPeerWhoseCertificateIsNotTheAnnouncedOneIsRefused() throws {
        let mallory = try DTLSCertificate.generate(commonName: "mallory")
        let (client, server) = try pair(clientExpects: [mallory.fingerprint])
        let events = exchange(client, server, first: client.start(now: .zero))
        XCTAssertNil(keys(events.client))
        guard case .failed(.fingerprintMismatch(let expected, let actual)) = events.client.last else {
            return XCTFail("client reported \(events.client)")
        }
        XCTAssertEqual(expected, [mallory.fingerprint])
        XCTAssertEqual(actual, [Self.bob.fingerprint])
        if case .failed = client.state {} else { XCTFail("client \(client.state)") }
    }

    func testFingerprintsAreComparedWithTheAnnouncedHashFunctionInEitherCase() throws {
        let sha1 = try XCTUnwrap(Self.bob.fingerprint(algorithm: "SHA-1"))
        XCTAssertEqual(sha1.algorithm, "sha-1")
        XCTAssertEqual(sha1.bytes.count, 20)
        let unknown = DTLSFingerprint(algorithm: "md2", bytes: [1, 2])
        let (client, server) = try pair(clientExpects: [unknown, DTLSFingerprint(algorithm: "SHA-1", bytes: sha1.bytes)])
        let events = exchange(client, server, first: client.start(now: .zero))
        XCTAssertEqual(keys(events.client)?.peerFingerprint, sha1)
        XCTAssertNotNil(keys(events.server))
    }

    func testOnlyUncheckableFingerprintsAreRefusedUpFront() {
        XCTAssertThrowsError(
            try DTLSAssociation(certificate: Self.alice, role: .client, remoteFingerprints: [DTLSFingerprint(algorithm: "md5", bytes: [0])])
        ) { error in
            XCTAssertEqual(error as? DTLSError, .unsupportedFingerprintAlgorithm("md5"))
        }
    }

    func testKeysWaitForAFingerprintThatArrivesAfterTheHandshake() throws {
        // The offerer's answer (with the peer's fingerprint) can arrive after ICE and DTLS finished.
        let (client, server) = try pair(serverExpects: nil)
        let events = exchange(client, server, first: client.start(now: .zero))
        XCTAssertNotNil(keys(events.client))
        XCTAssertNil(keys(events.server))
        XCTAssertEqual(server.state, .awaitingFingerprint)
        let late = server.setRemoteFingerprints([Self.alice.fingerprint], now: .milliseconds(300))
        XCTAssertEqual(keys(late)?.peerFingerprint, Self.alice.fingerprint)

        let (client2, server2) = try pair(serverExpects: nil)
        exchange(client2, server2, first: client2.start(now: .zero))
        let wrong = server2.setRemoteFingerprints([Self.bob.fingerprint], now: .milliseconds(300))
        guard case .failed(.fingerprintMismatch) = wrong.last else { return XCTFail("\(wrong)") }
    }

    func testAHandshakeWithNoAnswerFailsAtTheDeadlineOnTheInjectedClock() throws {
        let (client, _) = try pair()
        _ = client.start(now: .zero)
        let deadline = try XCTUnwrap(client.nextDeadline)
        XCTAssertLessThanOrEqual(deadline, .milliseconds(100), "the first retransmission is due within 100 ms")
        XCTAssertEqual(client.tick(now: .milliseconds(9_999)).filter { if case .failed = $0 { true } else { false } }, [])
        XCTAssertEqual(client.tick(now: .milliseconds(10_000)), [.failed(.handshakeTimedOut)])
        XCTAssertEqual(client.state, .failed(.handshakeTimedOut))
        XCTAssertNil(client.nextDeadline)
        XCTAssertEqual(client.tick(now: .milliseconds(20_000)), [], "a failure is reported once")
    }

    func testALostFlightIsRetransmittedAndTheHandshakeCompletes() throws {
        // OpenSSL's retransmission timer reads the real clock: this test waits for it (100 ms).
        let (client, server) = try pair()
        var events = exchange(client, server, first: client.start(now: .zero)) { index, _ in index == 1 }
        XCTAssertNil(keys(events.client), "the ClientHello was lost")
        var retransmitted: [DTLSAction] = []
        let started = MonotonicMediaClock().now()
        while retransmitted.isEmpty, MonotonicMediaClock().now() - started < .milliseconds(2_000) {
            usleep(10_000)
            retransmitted = client.tick(now: .milliseconds(50))
        }
        XCTAssertFalse(retransmitted.isEmpty, "the ClientHello is sent again")
        events = exchange(client, server, first: retransmitted)
        XCTAssertNotNil(keys(events.client))
        XCTAssertNotNil(keys(events.server))
    }

    func testGarbageRecordsNeitherBreakAHandshakeNorAConnectedAssociation() throws {
        let (client, server) = try pair()
        var random = SystemRandomNumberGenerator()
        for length in [1, 13, 14, 100, 1500, 2048] {
            var junk = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            junk[0] = 22
            XCTAssertEqual(server.receive(junk, now: .zero).filter { if case .send = $0 { false } else { true } }, [])
        }
        XCTAssertEqual(server.receive([UInt8](repeating: 23, count: 4000), now: .zero), [], "over-long datagrams are dropped")
        let events = exchange(client, server, first: client.start(now: .zero))
        XCTAssertNotNil(keys(events.client))
        XCTAssertNotNil(keys(events.server))
        for length in [13, 40, 200] {
            var junk = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            junk[0] = 23
            junk[1] = 0xFE
            junk[2] = 0xFD
            _ = server.receive(junk, now: .zero)
        }
        if case .connected = server.state {} else { XCTFail("server \(server.state)") }
    }

    func testAClientHelloFloodAtAConnectedAssociationLeavesItConnected() throws {
        let (client, server) = try pair()
        exchange(client, server, first: client.start(now: .zero))
        for _ in 0..<50 {
            let intruder = try DTLSAssociation(certificate: Self.bob, role: .client, remoteFingerprints: [Self.bob.fingerprint])
            for case .send(let hello) in intruder.start(now: .zero) {
                let answer = server.receive(hello, now: .zero)
                XCTAssertFalse(answer.contains { if case .failed = $0 { true } else { false } }, "\(answer)")
            }
        }
        if case .connected = server.state {} else { XCTFail("server \(server.state)") }
    }

    func testCloseNotifyTellsThePeer() throws {
        let (client, server) = try pair()
        exchange(client, server, first: client.start(now: .zero))
        let bye = client.close()
        XCTAssertEqual(client.state, .closed)
        var serverEvents: [DTLSAction] = []
        for case .send(let datagram) in bye { serverEvents += server.receive(datagram, now: .zero) }
        XCTAssertEqual(serverEvents, [.closed])
        XCTAssertEqual(server.state, .closed)
    }

    func testCertificateSurvivesAPEMRoundTripWithItsFingerprint() throws {
        let pem = try Self.alice.pemEncoded()
        XCTAssertTrue(pem.certificate.hasPrefix("-----BEGIN CERTIFICATE-----"))
        XCTAssertTrue(pem.privateKey.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let loaded = try DTLSCertificate(certificatePEM: pem.certificate, privateKeyPEM: pem.privateKey)
        XCTAssertEqual(loaded.fingerprint, Self.alice.fingerprint)
        XCTAssertEqual(loaded.fingerprint.algorithm, "sha-256")
        XCTAssertEqual(loaded.fingerprint.bytes.count, 32)
        XCTAssertEqual(loaded.fingerprint.hex.count, 32 * 3 - 1)
        XCTAssertNotEqual(Self.alice.fingerprint, Self.bob.fingerprint, "every certificate is fresh")

        let otherKey = try Self.bob.pemEncoded().privateKey
        XCTAssertThrowsError(try DTLSCertificate(certificatePEM: pem.certificate, privateKeyPEM: otherKey), "a key that is not the certificate's")
        XCTAssertThrowsError(try DTLSCertificate(certificatePEM: "not a certificate", privateKeyPEM: pem.privateKey))
        XCTAssertThrowsError(try DTLSCertificate.generate(validityDays: 0))
    }
}
