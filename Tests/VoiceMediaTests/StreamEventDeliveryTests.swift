import Foundation
import VoiceEmbedded
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
import XCTest

@testable import VoiceMedia

/// A stream's events reach its handler, every one and in order, while the media thread never
/// waits: the handler's side may be held up (its lock taken by a controlling thread, a busy
/// call loop) and the media thread goes on queueing. The subject is the hand-off between real
/// threads (the engine's worker, a device thread, the delivery queue), so it runs on the
/// threaded engine over loopback UDP.
final class StreamEventDeliveryTests: XCTestCase {
    private static let peerSSRC: UInt32 = 0x5EED_0001

    private func rtp(_ header: RTPHeader, _ payload: [UInt8]) throws -> [UInt8] {
        try RTPPacket(header: header, payload: payload).serialized()
    }

    func testEveryEventArrivesInOrderWhileAControllingThreadHoldsTheHandlerLock() throws {
        let engine = MediaEngine(workerCount: 1)
        let loopback = try SocketAddress(host: "127.0.0.1", port: 0)
        let peer = try UDPSocket(bindTo: loopback)
        defer { peer.close() }
        let configuration = AudioStreamConfiguration(localAddress: loopback, codec: .pcmu, encryption: .unencrypted)
        let stream = try AudioStream(configuration: configuration, engine: engine)
        let device = ManualAudioDevice()
        let received = Locked<[AudioStreamEvent]>([])
        try stream.start(remote: peer.localAddress, audioDevice: device) { event in received.withLock { $0.append(event) } }
        defer { stream.stop() }

        let events = 1_000
        var expected: [AudioStreamEvent] = []
        let interruption = AudioDeviceError(kind: .ioFailed, message: "unplugged")
        try stream.control.events.handler.withLock { _ in
            // Three audio packets pass the source's probation, then 1,000 ended telephone
            // events (each its own timestamp), then an RTCP BYE, paced so the kernel keeps them all.
            var sequence: UInt16 = 1
            for i in 0..<3 {
                let header = RTPHeader(payloadType: 0, sequenceNumber: sequence, timestamp: UInt32(i * 160), ssrc: Self.peerSSRC)
                try send(rtp(header, [UInt8](repeating: 0xFF, count: 160)), from: peer, to: stream.localAddress)
                sequence += 1
            }
            for i in 0..<events {
                let code = UInt8(i % 16), duration = 400 + i
                let payload = try TelephoneEvent(event: code, isEnd: true, duration: UInt16(duration)).serialized()
                let header = RTPHeader(payloadType: 101, sequenceNumber: sequence, timestamp: UInt32(480 + i * 800), ssrc: Self.peerSSRC)
                try send(rtp(header, payload), from: peer, to: stream.localAddress)
                sequence &+= 1
                expected.append(.telephoneEvent(code: code, duration: duration))
                if i % 10 == 9 { usleep(1_000) }
            }
            let bye = try RTCPCompoundPacket(
                report: .receiverReport(RTCPReceiverReport(ssrc: Self.peerSSRC, reportBlocks: [])),
                sourceDescription: RTCPSourceDescription(ssrc: Self.peerSSRC, cname: "peer@example.test"),
                goodbye: RTCPGoodbye(ssrcs: [Self.peerSSRC])
            ).serialized()
            try send(bye, from: peer, to: stream.localAddress)
            expected.append(.remoteBye)
            // The media thread queued all of them, the handler still held up.
            XCTAssertTrue(PollingWait.until(timeout: 5) { stream.control.events.pendingCount >= events + 1 }, "queued: \(stream.control.events.pendingCount)")
            // Then the device's thread reports an interruption (here: this one, as a device's would).
            device.report(.interrupted(capture: true, interruption), capture: true)
            expected.append(.audioDevice(.interrupted(capture: true, interruption)))
            XCTAssertEqual(stream.control.events.pendingCount, events + 2)
            XCTAssertTrue(received.withLock { $0.isEmpty }, "nothing reached the handler while its lock was held")
        }
        XCTAssertTrue(PollingWait.until(timeout: 5) { received.withLock { $0.count } >= expected.count }, "delivered: \(received.withLock { $0.count })")
        XCTAssertEqual(received.withLock { $0 }, expected, "every event, in order")
        XCTAssertEqual(stream.stats.eventsLost, 0)
    }

    func testAFullQueueCountsWhatItLostAndSaysSoWhenTheHandlerRunsAgain() {
        let seen = Locked<[AudioStreamEvent]>([])
        let record: @Sendable (AudioStreamEvent) -> Void = { event in seen.withLock { $0.append(event) } }
        // Four slots; the handler's lock is held while six events come: two find it full.
        let held = StreamEvents(delivery: .queue(DispatchQueue(label: "voice-test-events")), capacity: 4)
        held.handler.withLock { $0 = record }
        held.handler.withLock { _ in
            for code in 0..<6 { held.post(.telephoneEvent(code: UInt8(code), duration: 1)) }
            XCTAssertEqual(held.lostCount, 2)
        }
        XCTAssertTrue(PollingWait.until(timeout: 5) { seen.withLock { $0.count } == 5 })
        XCTAssertEqual(
            seen.withLock { $0 }, (0..<4).map { AudioStreamEvent.telephoneEvent(code: UInt8($0), duration: 1) } + [.eventsLost(2)])
        // The inline delivery (embedded engines) hands each event over as it is posted.
        let inline = StreamEvents(delivery: .inline, capacity: 4)
        inline.handler.withLock { $0 = record }
        seen.withLock { $0 = [] }
        inline.post(.remoteBye)
        XCTAssertEqual(seen.withLock { $0 }, [.remoteBye])
    }

    private func send(_ bytes: [UInt8], from socket: UDPSocket, to destination: SocketAddress) throws {
        let sent = bytes.withUnsafeBytes { socket.send($0, to: destination) }
        XCTAssertTrue(sent)
    }
}
