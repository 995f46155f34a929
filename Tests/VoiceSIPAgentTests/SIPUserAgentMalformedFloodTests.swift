import Foundation
import NIOCore
import NIOPosix
import VoiceSIPTestVectors
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent
import VoiceMediaTypes
import VoiceSupport
import VoiceTestAudio

/// Every malformed message of the parser tests, plus the RFC 4475 valid torture messages and
/// seeded random corruptions, thrown at a running user agent over UDP and TCP: it must not
/// crash or wedge, must answer what deserves a 400, and must still answer OPTIONS afterwards.
final class SIPUserAgentMalformedFloodTests: XCTestCase {
    private static var corpus: [[UInt8]] {
        var messages = RFC4475.invalid.map { wire($0.text) }
        messages += [
            RFC4475.wsinv, RFC4475.intmeth, RFC4475.esc01, RFC4475.escnull, RFC4475.esc02, RFC4475.lwsdisp,
            RFC4475.longreq, RFC4475.dblreq, RFC4475.semiuri, RFC4475.transports, RFC4475.unreason,
            RFC4475.badbranch, RFC4475.unkscm, RFC4475.unksm2, RFC4475.bcast,
        ].map(wire)
        messages.append(RFC4475.mpart01)
        // Seeded corruptions of a valid OPTIONS: flipped bytes, truncations, junk, huge headers.
        var rng = SplitMix64(seed: 4475)
        let base = SIPTransportFixtures.options(branch: "z9hG4bKflood")
        for _ in 0..<200 {
            var bytes = base
            switch rng.next() % 4 {
            case 0:
                for _ in 0..<(1 + Int(rng.next() % 8)) { bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next()) }
            case 1:
                bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count))))
            case 2:
                bytes = (0..<Int(rng.next() % 2000)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            default:
                bytes.insert(contentsOf: Array("X-Big: \(String(repeating: "a", count: 40_000))\r\n".utf8), at: 40)
            }
            messages.append(bytes)
        }
        return messages
    }

    func testFloodOverUDPThenOptionsStillAnswered() throws {
        try flood(.udp)
    }

    func testFloodOverTCPThenOptionsStillAnswered() throws {
        try flood(.tcp)
    }

    private func flood(_ transport: SIPTransportProtocol) throws {
        let target = try SIPTestAgent(user: "target", transport: transport)
        defer { target.shutdown() }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let recorder = SIPTransportEventRecorder()
        let attacker = try SIPTransportLayer(group: group, onEvent: recorder.handler)
        defer { try? attacker.shutdown().wait() }
        _ = try attacker.listen(.udp, host: "127.0.0.1", port: 0).wait()
        let endpoint = target.endpoint
        var sent = 0
        for message in Self.corpus {
            // On TCP the target closes a stream it cannot frame; a send into that closing connection
            // fails and is repeated once on a new one.
            if (try? attacker.send(message, to: endpoint).wait()) != nil || (try? attacker.send(message, to: endpoint).wait()) != nil {
                sent += 1
            }
        }
        XCTAssertGreaterThan(sent, 200)
        if transport == .udp {
            // Each datagram is one message: those with readable headers get their 400.
            let badRequests = recorder.waitUntil(timeout: 15) {
                recorder.messages.contains { $0.0.response?.statusCode == 400 }
            }
            XCTAssertTrue(badRequests, "malformed requests with enough headers get a 400")
        } else {
            // On a stream, what follows a message that cannot be framed is lost with the closed
            // connection, and which messages open a fresh one depends on timing. So once the
            // flood is over, one malformed request with readable headers on its own connection
            // must get its 400 before the connection closes.
            _ = try? attacker.closeConnection(to: endpoint).wait()
            let branch = SIPIdentifierGenerator.branch()
            let malformed = String(decoding: SIPTransportFixtures.options(branch: branch, transport: "TCP"), as: UTF8.self)
                .replacingOccurrences(of: "Max-Forwards: 70", with: "Max-Forwards: seventy")
            try attacker.send(Array(malformed.utf8), to: endpoint).wait()
            let answered = recorder.waitUntil(timeout: 15) {
                recorder.messages.contains { (try? $0.0.headers.topVia().branch) == branch && $0.0.response?.statusCode == 400 }
            }
            XCTAssertTrue(answered, "a malformed request with readable headers gets a 400 after the flood")
            _ = try? attacker.closeConnection(to: endpoint).wait()
        }
        // Like a real client, retransmit the OPTIONS (Timer E): over UDP the kernel may still be
        // dropping datagrams while the agent works through the flood its socket buffer kept.
        let branch = SIPIdentifierGenerator.branch()
        let options = SIPTransportFixtures.options(branch: branch, transport: transport.rawValue)
        var answered = false
        for _ in 0..<10 where !answered {
            try attacker.send(options, to: endpoint).wait()
            answered = recorder.waitUntil(timeout: 0.5) {
                recorder.messages.contains { (try? $0.0.headers.topVia().branch) == branch && $0.0.response?.statusCode == 200 }
            }
        }
        XCTAssertTrue(answered, "the agent still answers OPTIONS; the attacker saw \(recorder.all.count) events")
    }
}
