import NIOCore
import NIOEmbedded
import VoiceSIP
import VoiceSIPAgent
import VoiceSupport

/// Feeds bytes to a listening WebSocket's real pipeline (HTTP handshake, frame decoder,
/// ``SIPWebSocketHandler``) on an `EmbeddedChannel`, as if a peer had sent them, and reports
/// what the transport layer made of them: for the fuzzing harness and tests.
package enum SIPWebSocketReplay {
    /// What one replay produced.
    package struct Outcome {
        /// SIP messages delivered.
        package var messages = 0
        /// Malformed messages reported.
        package var malformed = 0
        /// Keep-alive answers (Pongs, CRLF) reported.
        package var keepAlives = 0
        /// Refusals counted during the replay.
        package var refusals: [SIPWebSocketRefusal: Int] = [:]
        /// Whether the server side closed the connection.
        package var closed = false
    }

    /// A client's upgrade request offering `sip`.
    package static let handshake = Array(
        ("GET / HTTP/1.1\r\nHost: 192.0.2.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: sip\r\n\r\n").utf8)

    private final class Recorder: @unchecked Sendable {
        // @unchecked: written and read on the embedded loop's (the caller's) thread only.
        var outcome = Outcome()
    }

    /// Replays `bytes` (after a valid handshake when `afterHandshake`) into a new connection.
    package static func listening(_ bytes: [UInt8], afterHandshake: Bool) -> Outcome {
        // A new loop and layer each time: one kept for the process would outlive the leak check
        // with weak references to it, which the leak sanitizer cannot follow.
        let loop = EmbeddedEventLoop()
        let recorder = Recorder()
        // No trust store to load: the replay opens no TLS connection.
        var configuration = SIPTransportConfiguration()
        configuration.tlsClient.trustRoots = .certificates([])
        let layer = try? SIPTransportLayer(group: loop, configuration: configuration) { event in
            switch event {
            case .received: recorder.outcome.messages += 1
            case .malformed: recorder.outcome.malformed += 1
            case .keepAliveAnswered: recorder.outcome.keepAlives += 1
            default: break
            }
        }
        guard let layer else { return Outcome() }
        let channel = EmbeddedChannel(loop: loop)
        defer {
            _ = try? channel.finish()
            _ = layer.shutdown()
            loop.run()
            // Timers still pending (idle, handshake deadlines) go with the loop.
            try? loop.syncShutdownGracefully()
        }
        do {
            try layer.configureWebSocketServer(channel, transport: .ws, serverTLS: nil)
            channel.connect(to: try SocketAddress(ipAddress: "192.0.2.1", port: 5060), promise: nil)
            loop.run()
            try channel.writeInbound(ByteBuffer(bytes: afterHandshake ? handshake + bytes : bytes))
        } catch {}
        loop.run()
        var outcome = recorder.outcome
        outcome.closed = !channel.isActive
        outcome.refusals = layer.webSocketRefusalCountsOnLoop()
        return outcome
    }
}
