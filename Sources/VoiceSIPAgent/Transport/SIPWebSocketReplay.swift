import NIOCore
import NIOEmbedded
import VoiceSIP
import VoiceSupport

/// Feeds bytes to a listening WebSocket's real pipeline (HTTP handshake, frame decoder,
/// ``SIPWebSocketHandler``) on an `EmbeddedChannel`, as if a peer had sent them, and reports
/// what the transport layer made of them: for the fuzzing harness and tests. Not thread-safe:
/// one caller at a time.
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

    private struct World {
        let loop: EmbeddedEventLoop
        let layer: SIPTransportLayer
        let recorder: Recorder
        var port = 1024
    }

    /// One loop and layer for every replay: a TLS context per input would cost milliseconds.
    nonisolated(unsafe) private static var world: World?

    /// Replays `bytes` (after a valid handshake when `afterHandshake`) into a new connection.
    package static func listening(_ bytes: [UInt8], afterHandshake: Bool) -> Outcome {
        if world == nil {
            let loop = EmbeddedEventLoop()
            let recorder = Recorder()
            let layer = try? SIPTransportLayer(group: loop) { event in
                switch event {
                case .received: recorder.outcome.messages += 1
                case .malformed: recorder.outcome.malformed += 1
                case .keepAliveAnswered: recorder.outcome.keepAlives += 1
                default: break
                }
            }
            guard let layer else { return Outcome() }
            world = World(loop: loop, layer: layer, recorder: recorder)
        }
        guard var current = world else { return Outcome() }
        current.port = current.port == 65_535 ? 1024 : current.port + 1
        world = current
        let before = current.layer.webSocketRefusalCountsOnLoop()
        current.recorder.outcome = Outcome()
        let channel = EmbeddedChannel(loop: current.loop)
        defer {
            _ = try? channel.finish()
            current.loop.run()
        }
        do {
            try current.layer.configureWebSocketServer(channel, transport: .ws, serverTLS: nil)
            channel.connect(to: try SocketAddress(ipAddress: "192.0.2.1", port: current.port), promise: nil)
            current.loop.run()
            try channel.writeInbound(ByteBuffer(bytes: afterHandshake ? handshake + bytes : bytes))
        } catch {}
        current.loop.run()
        var outcome = current.recorder.outcome
        outcome.closed = !channel.isActive
        let after = current.layer.webSocketRefusalCountsOnLoop()
        for (reason, count) in after where count != before[reason, default: 0] {
            outcome.refusals[reason] = count - before[reason, default: 0]
        }
        return outcome
    }
}
