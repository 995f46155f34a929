import VoiceEmbedded
import Foundation
import NIOCore
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent

/// SIP over WebSocket (RFC 7118) between two transport layers, and a listening WebSocket
/// facing a raw client that breaks the handshake or the framing (RFC 6455).
final class SIPTransportWebSocketTests: SIPTransportTestCase {
    func testWSCarriesMessagesBothWaysOverOneConnection() throws {
        let a = SIPTransportEventRecorder(), b = SIPTransportEventRecorder()
        let layerA = try makeLayer(a), layerB = try makeLayer(b)
        let endB = try layerB.listen(.ws, host: "127.0.0.1", port: 0).wait()
        XCTAssertEqual(endB.transport, .ws)
        try layerA.send(SIPTransportFixtures.options(transport: "WS"), to: endB).wait()
        let received = b.waitForMessages(1)
        let request = try XCTUnwrap(received.first?.0.request)
        XCTAssertEqual(request.method, .options)
        let source = try XCTUnwrap(received.first?.1)
        XCTAssertEqual(source.transport, .ws)
        // The answer goes back over the connection the request came on.
        try layerB.send(SIPResponse(replyingTo: request, statusCode: 200).serialized(), to: source).wait()
        XCTAssertEqual(a.waitForMessages(1).first?.0.response?.statusCode, 200)
        XCTAssertEqual(a.messages.first?.1, endB)
        XCTAssertTrue(try layerA.hasConnection(to: endB).wait())
        // A second request reuses it; B sees the same source.
        try layerA.send(SIPTransportFixtures.options(transport: "WS"), to: endB).wait()
        XCTAssertEqual(b.waitForMessages(2).last?.1, source)
        // The flow keep-alive (CRLFCRLF) leaves as a WebSocket Ping and comes back as a Pong.
        try layerA.send(Array("\r\n\r\n".utf8), to: endB).wait()
        XCTAssertTrue(a.waitUntil { a.all.contains { if case .keepAliveAnswered(endB) = $0 { true } else { false } } })
        // Closing says so with a Close frame: B sees an orderly close.
        try layerA.closeConnection(to: endB).wait()
        XCTAssertTrue(b.waitUntil { b.all.contains { if case .connectionClosed(source, nil) = $0 { true } else { false } } })
    }

    func testCRLFKeepAlivesWhenAsked() throws {
        let a = SIPTransportEventRecorder(), b = SIPTransportEventRecorder()
        var configuration = SIPTransportConfiguration()
        configuration.webSocketKeepAlive = .crlf
        let layerA = try makeLayer(a, configuration: configuration), layerB = try makeLayer(b)
        let endB = try layerB.listen(.ws, host: "127.0.0.1", port: 0).wait()
        try layerA.send(Array("\r\n\r\n".utf8), to: endB).wait()
        // B answered the CRLFCRLF message with CRLF (a Ping would have been answered too, but B
        // saw a message: its connection counts as proven, with no SIP delivered).
        XCTAssertTrue(a.waitUntil { a.all.contains { if case .keepAliveAnswered(endB) = $0 { true } else { false } } })
        XCTAssertTrue(b.messages.isEmpty)
    }

    func testWSSVerifiesTheServerCertificate() throws {
        let a = SIPTransportEventRecorder(), b = SIPTransportEventRecorder()
        var clientConfig = SIPTransportConfiguration()
        clientConfig.tlsClient = try SIPTransportFixtures.clientTrustingTestCA()
        clientConfig.webSocketPath = "/sip"
        let layerA = try makeLayer(a, configuration: clientConfig)
        let layerB = try makeLayer(b, configuration: .init(tlsServer: try SIPTransportFixtures.server()))
        let endB = try layerB.listen(.wss, host: "127.0.0.1", port: 0).wait()
        try layerA.send(SIPTransportFixtures.options(transport: "WSS"), to: endB, serverName: "localhost").wait()
        let received = try XCTUnwrap(b.waitForMessages(1).first)
        XCTAssertEqual(received.1.transport, .wss)
        try layerB.send(SIPResponse(replyingTo: try XCTUnwrap(received.0.request), statusCode: 200).serialized(), to: received.1).wait()
        XCTAssertEqual(a.waitForMessages(1).first?.0.response?.statusCode, 200)

        // The default trust store does not know the test CA: a typed TLS failure, nothing sent.
        let layerC = try makeLayer(SIPTransportEventRecorder())
        XCTAssertThrowsError(try layerC.send(SIPTransportFixtures.options(), to: endB, serverName: "localhost").wait()) {
            XCTAssertEqual(($0 as? SIPTransportError)?.kind, .tlsFailed)
        }
        XCTAssertEqual(b.messages.count, 1)
    }

    func testDeadOrNonSIPServersFailFastWithTypedErrors() throws {
        let a = SIPTransportEventRecorder()
        let layerA = try makeLayer(a)
        // Nothing listens.
        let port = try SIPPeerProcess.freePort()
        let dead = try SIPTransportEndpoint(transport: .wss, ip: "127.0.0.1", port: port)
        let started = Date()
        XCTAssertThrowsError(try layerA.send(SIPTransportFixtures.options(), to: dead, serverName: "localhost").wait()) {
            XCTAssertEqual(($0 as? SIPTransportError)?.kind, .connectFailed)
            XCTAssertEqual(($0 as? SIPTransportError)?.failure, .connectionError)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        // A plain TCP SIP listener (no HTTP at all) answers the GET with nothing parseable: the
        // handshake fails, typed, rather than the connection being taken for a WebSocket.
        let layerB = try makeLayer(SIPTransportEventRecorder())
        let tcp = try layerB.listen(.tcp, host: "127.0.0.1", port: 0).wait()
        let notWS = try SIPTransportEndpoint(transport: .ws, ip: "127.0.0.1", port: tcp.port)
        XCTAssertThrowsError(try layerA.send(SIPTransportFixtures.options(), to: notWS).wait()) {
            XCTAssertEqual(($0 as? SIPTransportError)?.kind, .connectFailed)
        }
    }

    func testHandshakesWithoutTheSIPSubprotocolAreRefusedAndCounted() throws {
        let b = SIPTransportEventRecorder()
        let layerB = try makeLayer(b)
        let endB = try layerB.listen(.ws, host: "127.0.0.1", port: 0).wait()
        let chat = try XCTUnwrap(RawWebSocket(port: endB.port, subprotocol: "chat"))
        XCTAssertTrue(chat.handshakeResponse().hasPrefix("HTTP/1.1 400"))
        XCTAssertTrue(chat.tcp.isClosedByPeer(within: 2))
        let plain = try XCTUnwrap(RawTCPClient(to: "127.0.0.1", port: endB.port))
        plain.sendNow(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        XCTAssertTrue(plain.receiveText(within: 2, until: "\r\n\r\n").hasPrefix("HTTP/1.1 426"))
        XCTAssertTrue(plain.isClosedByPeer(within: 2))
        let counts = try layerB.webSocketRefusalCounts().wait()
        XCTAssertEqual(counts[.noSIPSubprotocol], 1)
        XCTAssertEqual(counts[.notWebSocket], 1)
        XCTAssertTrue(b.messages.isEmpty)
    }

    func testFramesAgainstTheProtocolGetTheirCloseStatus() throws {
        let b = SIPTransportEventRecorder()
        let layerB = try makeLayer(b)
        let endB = try layerB.listen(.ws, host: "127.0.0.1", port: 0).wait()
        let options = SIPTransportFixtures.options(transport: "WS")
        let cases: [(String, [UInt8], UInt16)] = [
            ("unmasked", RawWebSocket.frame(opcode: 0x1, payload: options, masked: false), 1002),
            ("reserved opcode", RawWebSocket.frame(opcode: 0x3, payload: options), 1002),
            ("reserved bit", RawWebSocket.frame(opcode: 0x1, payload: options, rsv: 0x40), 1002),
            ("orphan continuation", RawWebSocket.frame(opcode: 0x0, payload: options), 1002),
            ("oversized", RawWebSocket.frame(opcode: 0x2, payload: [UInt8](repeating: 0x41, count: 70_000)), 1009),
            ("oversized fragments", RawWebSocket.frame(opcode: 0x1, payload: [UInt8](repeating: 0x41, count: 40_000), fin: false)
                + RawWebSocket.frame(opcode: 0x0, payload: [UInt8](repeating: 0x41, count: 40_000)), 1009),
            ("text not UTF-8", RawWebSocket.frame(opcode: 0x1, payload: [0xC3, 0x28, 0xFF]), 1007),
        ]
        for (name, bytes, status) in cases {
            let client = try XCTUnwrap(RawWebSocket(port: endB.port))
            XCTAssertTrue(client.handshakeResponse().hasPrefix("HTTP/1.1 101"), name)
            client.tcp.sendNow(bytes)
            let close = client.readFrame(within: 3)
            XCTAssertEqual(close?.opcode, 0x8, name)
            XCTAssertEqual(close.flatMap { $0.payload.count >= 2 ? UInt16($0.payload[0]) << 8 | UInt16($0.payload[1]) : nil }, status, name)
            XCTAssertTrue(client.tcp.isClosedByPeer(within: 3), name)
        }
        let counts = try layerB.webSocketRefusalCounts().wait()
        XCTAssertEqual(counts[.protocolError], 4)
        XCTAssertEqual(counts[.oversizedMessage], 2)
        XCTAssertEqual(counts[.invalidText], 1)
        XCTAssertTrue(b.messages.isEmpty)
    }

    func testFragmentsKeepAlivesAndMalformedSIPOnAnOpenWebSocket() throws {
        let b = SIPTransportEventRecorder()
        let layerB = try makeLayer(b)
        let endB = try layerB.listen(.ws, host: "127.0.0.1", port: 0).wait()
        let client = try XCTUnwrap(RawWebSocket(port: endB.port))
        let response = client.handshakeResponse()
        XCTAssertTrue(response.hasPrefix("HTTP/1.1 101"))
        XCTAssertTrue(response.lowercased().contains("sec-websocket-protocol: sip"))
        // A message in three fragments is one message.
        let options = SIPTransportFixtures.options(transport: "WS")
        client.tcp.sendNow(
            RawWebSocket.frame(opcode: 0x1, payload: Array(options[..<40]), fin: false)
                + RawWebSocket.frame(opcode: 0x0, payload: Array(options[40..<100]), fin: false)
                + RawWebSocket.frame(opcode: 0x0, payload: Array(options[100...])))
        XCTAssertEqual(b.waitForMessages(1).first?.0.request?.method, .options)
        // A browser's CRLF keep-alive is answered with CRLF; a Ping with a Pong carrying its data.
        client.tcp.sendNow(RawWebSocket.frame(opcode: 0x1, payload: Array("\r\n\r\n".utf8)))
        let pong = client.readFrame(within: 2)
        XCTAssertEqual(pong?.opcode, 0x1)
        XCTAssertEqual(pong?.payload, Array("\r\n".utf8))
        client.tcp.sendNow(RawWebSocket.frame(opcode: 0x9, payload: [1, 2, 3]))
        let wsPong = client.readFrame(within: 2)
        XCTAssertEqual(wsPong?.opcode, 0xA)
        XCTAssertEqual(wsPong?.payload, [1, 2, 3])
        // Garbage in a frame is a malformed message, as a bad datagram is: reported, and the
        // connection stays for the next good one.
        client.tcp.sendNow(RawWebSocket.frame(opcode: 0x1, payload: Array("not SIP at all\r\n\r\n".utf8)))
        XCTAssertTrue(b.waitUntil { b.all.contains { if case .malformed = $0 { true } else { false } } })
        client.tcp.sendNow(RawWebSocket.frame(opcode: 0x2, payload: options))
        XCTAssertEqual(b.waitForMessages(2).count, 2)
        // The peer's Close is echoed and the connection ends in order.
        client.tcp.sendNow(RawWebSocket.frame(opcode: 0x8, payload: [0x03, 0xE8]))
        let close = client.readFrame(within: 2)
        XCTAssertEqual(close?.opcode, 0x8)
        XCTAssertEqual(close?.payload, [0x03, 0xE8])
        XCTAssertTrue(client.tcp.isClosedByPeer(within: 2))
        XCTAssertTrue(try layerB.webSocketRefusalCounts().wait().isEmpty)
    }
}

/// The replay the fuzzing harness drives: the same pipeline, fed bytes on an embedded channel.
final class SIPWebSocketReplayTests: XCTestCase {
    func testReplayDeliversRefusesAndCloses() {
        let options = SIPTransportFixtures.options(transport: "WS")
        let good = SIPWebSocketReplay.listening(RawWebSocket.frame(opcode: 0x1, payload: options), afterHandshake: true)
        XCTAssertEqual(good.messages, 1)
        XCTAssertFalse(good.closed)
        XCTAssertTrue(good.refusals.isEmpty)
        let unmasked = SIPWebSocketReplay.listening(RawWebSocket.frame(opcode: 0x1, payload: options, masked: false), afterHandshake: true)
        XCTAssertEqual(unmasked.messages, 0)
        XCTAssertEqual(unmasked.refusals, [.protocolError: 1])
        XCTAssertTrue(unmasked.closed)
        let noHandshake = SIPWebSocketReplay.listening(RawWebSocket.frame(opcode: 0x1, payload: options), afterHandshake: false)
        XCTAssertEqual(noHandshake.messages, 0)
        XCTAssertTrue(noHandshake.closed)
        let keepAlive = SIPWebSocketReplay.listening(RawWebSocket.frame(opcode: 0xA, payload: []), afterHandshake: true)
        XCTAssertEqual(keepAlive.keepAlives, 1)
    }
}

/// A WebSocket client written out by hand, to send what a well-behaved one never would.
struct RawWebSocket {
    let tcp: RawTCPClient

    init?(port: Int, subprotocol: String? = "sip") {
        guard let tcp = RawTCPClient(to: "127.0.0.1", port: port) else { return nil }
        self.tcp = tcp
        let request =
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + (subprotocol.map { "Sec-WebSocket-Protocol: \($0)\r\n" } ?? "") + "\r\n"
        tcp.sendNow(Array(request.utf8))
    }

    /// The handshake's response head, read a byte at a time so no frame after it is taken.
    func handshakeResponse(within timeout: TimeInterval = 3) -> String {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, !bytes.ends(with: Array("\r\n\r\n".utf8)) {
            let byte = tcp.receiveBytes(1, within: max(0, deadline.timeIntervalSinceNow))
            if byte.isEmpty { break }
            bytes += byte
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// One frame, masked as a client's must be unless told otherwise.
    static func frame(opcode: UInt8, payload: [UInt8], masked: Bool = true, fin: Bool = true, rsv: UInt8 = 0) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | rsv | opcode]
        let mask: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            bytes.append(mask | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes += [mask | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(mask | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        guard masked else { return bytes + payload }
        let key: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    /// The next frame from the server (unmasked, as a server's are), or nil.
    func readFrame(within timeout: TimeInterval) -> (opcode: UInt8, payload: [UInt8])? {
        let head = tcp.receiveBytes(2, within: timeout)
        guard head.count == 2 else { return nil }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            let extended = tcp.receiveBytes(2, within: timeout)
            guard extended.count == 2 else { return nil }
            length = Int(extended[0]) << 8 | Int(extended[1])
        } else if length == 127 {
            return nil
        }
        let payload = tcp.receiveBytes(length, within: timeout)
        guard payload.count == length else { return nil }
        return (head[0] & 0x0F, payload)
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
