#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import Synchronization
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
import VoiceTestKit
import VoiceMedia

/// Two real media streams on loopback through a user-space relay that drops packets on demand:
/// the receiver's statistics, sampled through ``CallQualitySampler`` into the detector, must raise
/// the packet-loss warning while packets are dropped and clear it once they are not.
final class CallQualityEndToEndTests: XCTestCase {
    /// Relays UDP between endpoints A and B; drops every `dropEvery`-th RTP packet from A to B
    /// (RTCP always passes) while `dropEvery` > 0.
    private final class LossyRelay: Sendable {
        let addressForA: SocketAddress
        let addressForB: SocketAddress
        let dropEvery = Atomic<Int>(0)
        let dropped = Atomic<Int>(0)
        private let running = Atomic<Bool>(true)
        private let finished = DispatchSemaphore(value: 0)
        private let socketA: UDPSocket
        private let socketB: UDPSocket

        init(a: SocketAddress, b: SocketAddress) throws {
            socketA = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
            socketB = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
            addressForA = socketA.localAddress
            addressForB = socketB.localAddress
            let thread = Thread { [self] in run(a: a, b: b) }
            thread.start()
        }

        private func run(a: SocketAddress, b: SocketAddress) {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 8)
            defer {
                buffer.deallocate()
                finished.signal()
            }
            var rtpFromA = 0
            var fds = [pollfd(fd: socketA.fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: socketB.fd, events: Int16(POLLIN), revents: 0)]
            while running.load(ordering: .acquiring) {
                _ = poll(&fds, 2, 10)
                while let n = socketA.receive(into: buffer) {
                    let isRTCP = n > 1 && (200...204).contains(buffer[1])
                    if !isRTCP {
                        rtpFromA += 1
                        let every = dropEvery.load(ordering: .relaxed)
                        if every > 0 && rtpFromA % every == 0 {
                            dropped.add(1, ordering: .relaxed)
                            continue
                        }
                    }
                    socketB.send(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), to: b)
                }
                while let n = socketB.receive(into: buffer) {
                    socketA.send(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), to: a)
                }
            }
        }

        func stop() {
            guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
            finished.wait()
            socketA.close()
            socketB.close()
        }
    }

    func testUserSpaceLossRaisesAndClearsThePacketLossWarning() throws {
        let loopback = try SocketAddress(host: "127.0.0.1", port: 0)
        // G.711 sends every frame (Opus would stop sending silence through DTX).
        let sender = try AudioStream(
            configuration: AudioStreamConfiguration(localAddress: loopback, codec: .pcmu, encryption: .unencrypted))
        let receiver = try AudioStream(
            configuration: AudioStreamConfiguration(localAddress: loopback, codec: .pcmu, encryption: .unencrypted))
        let relay = try LossyRelay(a: sender.localAddress, b: receiver.localAddress)
        defer {
            sender.stop()
            receiver.stop()
            relay.stop()
        }
        try sender.start(remote: relay.addressForA, audioDevice: nil)
        try receiver.start(remote: relay.addressForB, audioDevice: nil)

        let recorder = RecordingInsightsPublisher()
        var sampler = CallQualitySampler()
        var detector = CallQualityWarningDetector()
        // Samples four times a second instead of once, to keep the test short; the detector
        // counts samples, not seconds.
        func sample(until condition: (Set<CallQualityWarning>) -> Bool, maxSamples: Int) -> Bool {
            for _ in 0..<maxSamples {
                Thread.sleep(forTimeInterval: 0.25)
                let stats = receiver.stats
                let s = sampler.sample(from: stats, isMuted: false)
                if let change = detector.add(s, at: Date(), callSid: "CAe2e") {
                    change.insightsEvents.forEach(recorder.publish)
                }
                if condition(detector.warnings) { return true }
            }
            return false
        }

        // A clean start: two seconds without the warning.
        XCTAssertFalse(sample(until: { $0.contains(.highPacketsLostFraction) }, maxSamples: 8))
        relay.dropEvery.store(5, ordering: .relaxed)  // 20 % loss
        XCTAssertTrue(sample(until: { $0.contains(.highPacketsLostFraction) }, maxSamples: 40), "loss warning not raised")
        XCTAssertGreaterThan(relay.dropped.load(ordering: .relaxed), 0)
        let report = CallStatsReport(streamStats: receiver.stats, callSid: "CAe2e")
        XCTAssertGreaterThan(report.remoteAudioTrack?.packetsLost ?? 0, 0)
        XCTAssertGreaterThan(report.localAudioTrack?.packetsSent ?? 0, 0)
        XCTAssertGreaterThan(report.remoteAudioTrack?.packetsReceived ?? 0, 0)

        relay.dropEvery.store(0, ordering: .relaxed)
        XCTAssertTrue(sample(until: { !$0.contains(.highPacketsLostFraction) }, maxSamples: 40), "loss warning not cleared")
        // Other warnings may come and go too (MOS drops with the loss; silence is a constant level).
        let lossEvents = recorder.events.filter { $0.name == "high-packets-lost-fraction" }.map(\.group)
        XCTAssertEqual(lossEvents, [.networkQualityWarningRaised, .networkQualityWarningCleared])
        XCTAssertEqual(recorder.events.map(\.callSid), Array(repeating: "CAe2e", count: recorder.events.count))
    }
}
