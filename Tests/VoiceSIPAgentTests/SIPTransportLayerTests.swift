import NIOCore
import NIOPosix
import NIOSSL
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes
import VoiceSupport

final class SIPTransportLayerTests: SIPTransportTestCase {
    func testUDPBothWaysFromTheListeningSocketOnIPv4AndIPv6() throws {
        for host in ["127.0.0.1", "::1"] {
            let a = SIPTransportEventRecorder(), b = SIPTransportEventRecorder()
            let layerA = try makeLayer(a), layerB = try makeLayer(b)
            let endA = try layerA.listen(.udp, host: host, port: 0).wait()
            let endB = try layerB.listen(.udp, host: host, port: 0).wait()
            try layerA.send(SIPTransportFixtures.options(), to: endB).wait()
            let received = b.waitForMessages(1)
            XCTAssertEqual(received.count, 1, host)
            XCTAssertEqual(received.first?.0.request?.method, .options)
            // The source is A's listening socket, so B's reply reaches A's listener.
            XCTAssertEqual(received.first?.1, endA)
            let reply = SIPResponse(replyingTo: try XCTUnwrap(received.first?.0.request), statusCode: 200, toTag: "t")
            try layerB.send(reply.serialized(), to: try XCTUnwrap(received.first?.1)).wait()
            XCTAssertEqual(a.waitForMessages(1).first?.0.response?.statusCode, 200, host)
        }
    }

    /// A listener on `::` carries both families: it reaches an IPv4 and an IPv6 peer, sees
    /// each one's plain address (never `::ffff:…`), and their replies come back to it.
    func testADualStackUDPListenerTalksToBothFamilies() throws {
        let a = SIPTransportEventRecorder()
        let layerA = try makeLayer(a)
        let endA = try layerA.listen(.udp, host: "::", port: 0).wait()
        for (index, host) in ["127.0.0.1", "::1"].enumerated() {
            let b = SIPTransportEventRecorder()
            let layerB = try makeLayer(b)
            let endB = try layerB.listen(.udp, host: host, port: 0).wait()
            try layerA.send(SIPTransportFixtures.options(), to: endB).wait()
            let received = try XCTUnwrap(b.waitForMessages(1).first, host)
            XCTAssertEqual(received.1.address.ipAddress, host, "from A's \(host) side")
            XCTAssertEqual(received.1.address.port, endA.address.port, "from A's listener")
            let reply = SIPResponse(replyingTo: try XCTUnwrap(received.0.request), statusCode: 200, toTag: "t")
            try layerB.send(reply.serialized(), to: received.1).wait()
            let answered = a.waitForMessages(index + 1)
            XCTAssertEqual(answered.last?.0.response?.statusCode, 200, host)
            XCTAssertEqual(answered.last?.1.address.ipAddress, host, "the sender unmapped")
        }
    }

    func testMalformedDatagramIsReportedAndKeepAliveIsDropped() throws {
        let a = SIPTransportEventRecorder(), b = SIPTransportEventRecorder()
        let layerA = try makeLayer(a), layerB = try makeLayer(b)
        _ = try layerA.listen(.udp, host: "127.0.0.1", port: 0).wait()
        let endB = try layerB.listen(.udp, host: "127.0.0.1", port: 0).wait()
        try layerA.send(Array("\r\n\r\n".utf8), to: endB).wait()
        try layerA.send(Array("INVITE sip:x SIP/2.0\r\nVia: garbage\r\n\r\n".utf8), to: endB).wait()
        try layerA.send(SIPTransportFixtures.options(), to: endB).wait()
        XCTAssertEqual(b.waitForMessages(1).count, 1)
        let malformed = b.all.compactMap { event -> SIPParseError? in
            if case .malformed(let error, _, _) = event { return error } else { return nil }
        }
        XCTAssertEqual(malformed.count, 1)
        XCTAssertEqual(b.all.count, 2, "the CRLF keep-alive is not an event")
    }

    func testUDPRefusesOversizedMessage() throws {
        let a = SIPTransportEventRecorder()
        let layer = try makeLayer(a)
        let target = try SIPTransportEndpoint(transport: .udp, ip: "127.0.0.1", port: 9)
        XCTAssertThrowsError(try layer.send([UInt8](repeating: 0x41, count: 70_000), to: target).wait()) { error in
            XCTAssertEqual((error as? SIPTransportError)?.kind, .messageTooLarge)
        }
    }

    func testTCPReusesOneConnectionBothWays() throws {
        let a = SIPTransportEventRecorder(), b = SIPTransportEventRecorder()
        let layerA = try makeLayer(a), layerB = try makeLayer(b)
        let endB = try layerB.listen(.tcp, host: "127.0.0.1", port: 0).wait()
        try layerA.send(SIPTransportFixtures.options(transport: "TCP"), to: endB).wait()
        try layerA.send(SIPTransportFixtures.options(transport: "TCP"), to: endB).wait()
        let received = b.waitForMessages(2)
        XCTAssertEqual(received.count, 2)
        XCTAssertEqual(received[0].1, received[1].1, "both arrived on one connection")
        // B answers to the source endpoint: the accepted connection is reused, A has no listener at all.
        let reply = SIPResponse(replyingTo: try XCTUnwrap(received[0].0.request), statusCode: 200, toTag: "t")
        try layerB.send(reply.serialized(), to: received[0].1).wait()
        XCTAssertEqual(a.waitForMessages(1).first?.0.response?.statusCode, 200)
        XCTAssertTrue(try layerB.hasConnection(to: received[0].1).wait())
        // Closing reports connectionClosed on the other side.
        try layerA.closeConnection(to: endB).wait()
        XCTAssertTrue(b.waitUntil { b.all.contains { if case .connectionClosed = $0 { return true } else { return false } } })
    }

    func testTCPFramesSplitAndCoalescedWritesAndAnswersKeepAlivePing() throws {
        let b = SIPTransportEventRecorder()
        let layerB = try makeLayer(b)
        let endB = try layerB.listen(.tcp, host: "127.0.0.1", port: 0).wait()
        let client = try ClientBootstrap(group: group).connect(to: endB.address).wait()
        defer { try? client.close().wait() }
        let pong = PongCatcher()
        try client.pipeline.addHandler(pong).wait()
        let one = SIPTransportFixtures.options(transport: "TCP"), two = SIPTransportFixtures.options(transport: "TCP")
        let all = one + two + Array("\r\n\r\n".utf8)
        try client.writeAndFlush(client.allocator.buffer(bytes: Array(all[0..<10]))).wait()
        try client.writeAndFlush(client.allocator.buffer(bytes: Array(all[10...]))).wait()
        XCTAssertEqual(b.waitForMessages(2).count, 2)
        XCTAssertTrue(b.waitUntil { pong.received.withLock { $0 } == Array("\r\n".utf8) })
    }

    func testUnframeableStreamIsReportedAndClosed() throws {
        let b = SIPTransportEventRecorder()
        let layerB = try makeLayer(b)
        let endB = try layerB.listen(.tcp, host: "127.0.0.1", port: 0).wait()
        let client = try ClientBootstrap(group: group).connect(to: endB.address).wait()
        let noLength = "OPTIONS sip:b@h SIP/2.0\r\nVia: SIP/2.0/TCP h;branch=z9hG4bKx\r\nCall-ID: x\r\n\r\n"
        try client.writeAndFlush(client.allocator.buffer(string: noLength)).wait()
        XCTAssertTrue(b.waitUntil { b.all.contains { if case .malformed = $0 { return true } else { return false } } })
        XCTAssertNoThrow(try client.closeFuture.wait(), "the server closed the connection")
    }

    func testConnectRefusedIsATypedConnectionError() throws {
        let a = SIPTransportEventRecorder()
        let layer = try makeLayer(a)
        // Find a free port, then close it so nothing listens there.
        let probe = try ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).wait()
        let port = try XCTUnwrap(probe.localAddress?.port)
        try probe.close().wait()
        let target = try SIPTransportEndpoint(transport: .tcp, ip: "127.0.0.1", port: port)
        XCTAssertThrowsError(try layer.send(SIPTransportFixtures.options(), to: target).wait()) { error in
            let error = error as? SIPTransportError
            XCTAssertEqual(error?.kind, .connectFailed)
            XCTAssertEqual(error?.failure, .connectionError)
        }
    }

    func testTLSVerifiesTheServerCertificate() throws {
        let a = SIPTransportEventRecorder(), b = SIPTransportEventRecorder()
        var clientConfig = SIPTransportConfiguration()
        clientConfig.tlsClient = try SIPTransportFixtures.clientTrustingTestCA()
        let layerA = try makeLayer(a, configuration: clientConfig)
        let layerB = try makeLayer(b, configuration: .init(tlsServer: try SIPTransportFixtures.server()))
        for host in ["127.0.0.1", "::1"] {
            let endB = try layerB.listen(.tls, host: host, port: 0).wait()
            // By IP (matched against the IP SANs) and by name.
            try layerA.send(SIPTransportFixtures.options(transport: "TLS"), to: endB).wait()
            _ = try layerA.closeConnection(to: endB).wait()
            try layerA.send(SIPTransportFixtures.options(transport: "TLS"), to: endB, serverName: "localhost").wait()
            let received = b.waitForMessages(2)
            XCTAssertEqual(received.count, 2, host)
            let reply = SIPResponse(replyingTo: try XCTUnwrap(received.last?.0.request), statusCode: 200, toTag: "t")
            try layerB.send(reply.serialized(), to: try XCTUnwrap(received.last?.1)).wait()
            XCTAssertEqual(a.waitForMessages(1).first?.0.response?.statusCode, 200)
            try layerB.shutdown().wait()
            break
        }
        // A certificate for sip.voice.test only: that name verifies, another name or the bare IP does not.
        let layerC = try makeLayer(b, configuration: .init(tlsServer: try SIPTransportFixtures.server(named: true)))
        let endC = try layerC.listen(.tls, host: "127.0.0.1", port: 0).wait()
        for wrongName in ["localhost", nil] {
            XCTAssertThrowsError(try layerA.send(SIPTransportFixtures.options(), to: endC, serverName: wrongName).wait()) {
                XCTAssertEqual(($0 as? SIPTransportError)?.kind, .tlsFailed)
            }
        }
        XCTAssertNoThrow(try layerA.send(SIPTransportFixtures.options(), to: endC, serverName: "sip.voice.test").wait())
    }

    func testTLSRejectsAnUntrustedCertificateByDefault() throws {
        let a = SIPTransportEventRecorder(), b = SIPTransportEventRecorder()
        let layerA = try makeLayer(a)  // default: system trust store only
        let layerB = try makeLayer(b, configuration: .init(tlsServer: try SIPTransportFixtures.server(untrusted: true)))
        let endB = try layerB.listen(.tls, host: "127.0.0.1", port: 0).wait()
        XCTAssertThrowsError(try layerA.send(SIPTransportFixtures.options(), to: endB, serverName: "localhost").wait()) { error in
            let error = error as? SIPTransportError
            XCTAssertEqual(error?.kind, .tlsFailed)
            XCTAssertEqual(error?.failure, .connectionError)
        }
        XCTAssertTrue(b.messages.isEmpty)
    }

    func testListeningOnTLSWithoutACertificateAndSendingAfterShutdownAreTypedErrors() throws {
        let layer = try makeLayer(SIPTransportEventRecorder())
        XCTAssertThrowsError(try layer.listen(.tls, host: "127.0.0.1", port: 0).wait()) {
            XCTAssertEqual(($0 as? SIPTransportError)?.kind, .unsupportedTransport)
        }
        try layer.shutdown().wait()
        let target = try SIPTransportEndpoint(transport: .udp, ip: "127.0.0.1", port: 9)
        XCTAssertThrowsError(try layer.send([1], to: target).wait()) {
            XCTAssertEqual(($0 as? SIPTransportError)?.kind, .shutDown)
        }
    }

    /// RFC 5626 §4.4.1 between two of our layers: each CRLFCRLF ping is answered with a CRLF
    /// pong, which the pinging side reports as an answered keep-alive; pings are never reported
    /// as messages and keep the connection open.
    func testKeepAlivesReachTheServerAndArePonged() throws {
        let a = SIPTransportEventRecorder(), b = SIPTransportEventRecorder()
        let layerA = try makeLayer(a), layerB = try makeLayer(b)
        let endB = try layerB.listen(.tcp, host: "127.0.0.1", port: 0).wait()
        try layerA.send(SIPTransportFixtures.options(transport: "TCP"), to: endB).wait()
        XCTAssertEqual(b.waitForMessages(1).count, 1)
        let pongs = { a.all.filter { if case .keepAliveAnswered(let source) = $0 { return source == endB } else { return false } }.count }
        for sent in 1...3 {
            try layerA.send([0x0D, 0x0A, 0x0D, 0x0A], to: endB).wait()
            XCTAssertTrue(a.waitUntil { pongs() == sent }, "pong \(sent)")
        }
        XCTAssertEqual(b.messages.count, 1)
        XCTAssertTrue(try layerA.hasConnection(to: endB).wait())
    }
}

/// Records what a raw client connection receives.
private final class PongCatcher: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let received = Locked<[UInt8]>([])
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(unwrapInboundIn(data).readableBytesView)
        received.withLock { $0 += bytes }
    }
}
