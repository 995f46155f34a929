import NIOCore
import NIOEmbedded
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent

/// The in-memory network's TCP: what the virtual-time reconnection tests rely on behaves as a
/// socket transport's TCP does (connections opened by a send, refused without a listener,
/// framed like a stream, lost at both ends when either closes).
final class SIPMemoryNetworkStreamTests: EmbeddedSIPTestCase {
    private final class Recorder: Sendable {
        let events = Locked<[String]>([])
        func record(_ event: SIPTransportEvent) {
            let text: String
            switch event {
            case .received(let message, let source):
                let line = String(decoding: message.serialized().prefix { $0 != 0x0D }, as: UTF8.self)
                text = "\(line) from \(source.port)"
            case .malformed(_, _, let source): text = "malformed from \(source.port)"
            case .connectionClosed(let remote, let error): text = "closed \(remote.port)\(error == nil ? "" : " with error")"
            case .keepAliveAnswered(let source): text = "pong from \(source.port)"
            case .stun, .unreachable: text = "other"
            }
            events.withLock { $0.append(text) }
        }
        var all: [String] { events.withLock { $0 } }
    }

    private func transport(_ host: String, _ kind: SIPTransportProtocol = .tcp) throws -> (any SIPTransport, Recorder, SIPTransportEndpoint) {
        let recorder = Recorder()
        let transport = try network.transportFactory { recorder.record($0) }
        let local = try transport.listen(kind, host: host, port: 5060).wait()
        return (transport, recorder, local)
    }

    private func options(_ n: Int) -> [UInt8] {
        Array(
            """
            OPTIONS sip:b@10.0.0.2 SIP/2.0\r
            Via: SIP/2.0/TCP 10.0.0.1:5060;branch=z9hG4bK\(n)\r
            From: <sip:a@10.0.0.1>;tag=1\r
            To: <sip:b@10.0.0.2>\r
            Call-ID: c\(n)\r
            CSeq: \(n) OPTIONS\r
            Max-Forwards: 70\r
            Content-Length: 0\r
            \r

            """.utf8)
    }

    func testASendOpensAConnectionFromAnEphemeralPortAndRepliesReuseIt() throws {
        let (a, aEvents, _) = try transport("10.0.0.1")
        let (b, bEvents, bLocal) = try transport("10.0.0.2")
        _ = a.send(options(1) + options(2), to: bLocal, serverName: nil)
        loop.run()
        XCTAssertTrue(a.isConnected(to: bLocal))
        let ephemeral = try XCTUnwrap(network.sent.first?.source)
        XCTAssertEqual(ephemeral.transport, .tcp)
        XCTAssertEqual(ephemeral.host, "10.0.0.1")
        XCTAssertNotEqual(ephemeral.port, 5060, "not the listening port")
        XCTAssertEqual(bEvents.all, ["OPTIONS sip:b@10.0.0.2 SIP/2.0 from \(ephemeral.port)", "OPTIONS sip:b@10.0.0.2 SIP/2.0 from \(ephemeral.port)"],
                       "one write, two messages: framed as a stream")
        XCTAssertTrue(b.isConnected(to: ephemeral))

        // B answers on the connection it was reached by: A hears it from its own destination.
        _ = b.send(Array("\r\n\r\n".utf8), to: ephemeral, serverName: nil)
        loop.run()
        XCTAssertEqual(aEvents.all, [], "a CRLFCRLF ping is answered by the transport, not reported")
        XCTAssertEqual(network.sent.last.map { String(decoding: $0.bytes, as: UTF8.self) }, "\r\n", "A's transport ponged")
        XCTAssertEqual(bEvents.all.last, "pong from \(ephemeral.port)")
        XCTAssertEqual(network.sent.count, 3, "no second connection was opened")
    }

    func testASendToAnAddressWithoutAListenerIsRefused() throws {
        let (a, _, _) = try transport("10.0.0.1")
        let nobody = try SIPTransportEndpoint(transport: .tcp, ip: "10.0.0.9", port: 5060)
        let sent = a.send(options(1), to: nobody, serverName: nil)
        loop.run()
        XCTAssertThrowsError(try sent.wait()) { error in
            XCTAssertEqual((error as? SIPTransportError)?.kind, .connectFailed)
        }
        // A UDP listener at the address does not accept TCP either.
        let (_, _, udpOnly) = try transport("10.0.0.3", .udp)
        let toUDP = a.send(options(2), to: SIPTransportEndpoint(transport: .tcp, address: udpOnly.address), serverName: nil)
        loop.run()
        XCTAssertThrowsError(try toUDP.wait())
    }

    func testClosingFromEitherEndReportsItLostAtBothAfterWhatWasSentBefore() throws {
        for closerIsOpener in [true, false] {
            setUp()
            let (a, aEvents, _) = try transport("10.0.0.1")
            let (b, bEvents, bLocal) = try transport("10.0.0.2")
            _ = a.send(options(1), to: bLocal, serverName: nil)
            loop.run()
            let ephemeral = try XCTUnwrap(network.sent.first?.source)
            if closerIsOpener {
                _ = a.send(options(2), to: bLocal, serverName: nil)
                loop.run()  // the write is under way…
                try a.closeConnection(to: bLocal).wait()  // …and arrives before the close
            } else {
                try b.closeConnection(to: ephemeral).wait()
            }
            loop.run()
            XCTAssertFalse(a.isConnected(to: bLocal))
            XCTAssertFalse(b.isConnected(to: ephemeral))
            XCTAssertEqual(aEvents.all, ["closed 5060"], "closer is opener: \(closerIsOpener)")
            XCTAssertEqual(bEvents.all.last, "closed \(ephemeral.port)", "closer is opener: \(closerIsOpener)")
            XCTAssertEqual(bEvents.all.count, closerIsOpener ? 3 : 2)
        }
    }

    func testAShutDownPeerLosesItsConnectionsAndRefusesNewOnes() throws {
        let (a, aEvents, _) = try transport("10.0.0.1")
        let (b, _, bLocal) = try transport("10.0.0.2")
        _ = a.send(options(1), to: bLocal, serverName: nil)
        loop.run()
        try b.shutdown().wait()
        loop.run()
        XCTAssertEqual(aEvents.all, ["closed 5060"])
        let again = a.send(options(2), to: bLocal, serverName: nil)
        loop.run()
        XCTAssertThrowsError(try again.wait(), "nothing listens there any more")
    }

    func testAnUnframeableStreamIsReportedAndClosed() throws {
        let (a, aEvents, _) = try transport("10.0.0.1")
        let (_, bEvents, bLocal) = try transport("10.0.0.2")
        // A request without Content-Length cannot be framed on a stream.
        let unframeable = Array("OPTIONS sip:b@10.0.0.2 SIP/2.0\r\nVia: SIP/2.0/TCP 10.0.0.1;branch=z9hG4bKx\r\n\r\n".utf8)
        _ = a.send(unframeable, to: bLocal, serverName: nil)
        loop.run()
        let ephemeral = try XCTUnwrap(network.sent.first?.source)
        XCTAssertEqual(bEvents.all, ["malformed from \(ephemeral.port)", "closed \(ephemeral.port) with error"])
        XCTAssertEqual(aEvents.all, ["closed 5060"])
    }
}
