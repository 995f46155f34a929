import Foundation
import VoiceMediaTypes
import VoiceSupport
import XCTest

@testable import VoiceRTP

/// The stream's logic as a value, fed events and checked by its actions, in virtual time with
/// a fake codec and fake protection: what one side captures plays at the other exactly, and
/// what a hostile or broken network does to it is counted, concealed or refused.
final class RTPStreamTests: XCTestCase {
    /// Time-scaling off, so every played frame is a whole 20 ms and can be checked exactly.
    private static func exactFrames(_ c: inout AudioStreamConfiguration) { c.jitterBuffer.timeStretch = false }

    func testWhatOneSideCapturesPlaysAtTheOtherFrameForFrame() {
        var pair = RTPStreamPair(configure: Self.exactFrames)
        pair.run(.seconds(5))
        let atB = RTPStreamPair.intactFrames(in: pair.b.output.played)
        let atA = RTPStreamPair.intactFrames(in: pair.a.output.played)
        // 250 frames in 5 s; the first few are the jitter buffer filling and the source's probation.
        XCTAssertGreaterThan(atB.continuing, 235, "A→B: \(atB)")
        XCTAssertGreaterThan(atA.continuing, 235, "B→A: \(atA)")
        let stats = pair.b.stream.statistics(at: pair.now)
        XCTAssertEqual(stats.packetsLost, 0)
        XCTAssertEqual(stats.srtpAuthFailures + stats.srtpReplayFailures + stats.malformedPackets, 0)
        XCTAssertEqual(stats.remoteSSRC, 0xA)
        XCTAssertEqual(pair.a.stream.statistics(at: pair.now).packetsSent, 250)
    }

    func testAMinuteWithLossAndJitterIsConcealedAndCounted() {
        var pair = RTPStreamPair(configure: Self.exactFrames)
        pair.lossRate = 0.05
        pair.jitter = .milliseconds(30)
        pair.run(.seconds(60))
        let atB = RTPStreamPair.intactFrames(in: pair.b.output.played)
        // 3,000 frames sent, 5 % lost: the rest play intact; the lost ones are concealed, never silent.
        XCTAssertGreaterThan(atB.intact, 2_700, "\(atB)")
        XCTAssertLessThan(atB.intact, 2_950, "losses cannot play as the signal")
        let stats = pair.b.stream.statistics(at: pair.now)
        let lostToB = Double(stats.packetsLost)
        XCTAssertEqual(lostToB, 150, accuracy: 60, "the receiver counts the losses (RFC 3550)")
        XCTAssertGreaterThan(stats.jitterMs, 3, "and measures the jitter")
        // A lost frame whose successor is buffered is handed over for FEC (which this codec
        // lacks, so it is concealed); one with nothing behind it is concealed outright.
        let jb = stats.jitterBuffer
        XCTAssertGreaterThan(jb.recoveredFrames + jb.concealedFrames, 100, "a lost frame is concealed: \(jb)")
        XCTAssertLessThan(pair.b.output.played.count - 3_000 * 960, 960 * 10, "the timeline keeps pace: \(pair.b.output.played.count)")
        // RTCP went both ways, and each side learned what the other lost of its stream.
        let a = pair.a.stream.statistics(at: pair.now)
        XCTAssertGreaterThan(a.reportsAboutUs, 40)
        XCTAssertGreaterThan(a.remotePacketsLost, 50)
    }

    func testRTCPMeasuresTheRoundTripFromTheSendersReports() {
        var pair = RTPStreamPair()
        pair.latency = .milliseconds(40)
        pair.run(.seconds(6))
        let rtt = try? XCTUnwrap(pair.a.stream.statistics(at: pair.now).rttMs)
        // 40 ms each way; RTCP leaves on a 5 ms tick, so the delay since the last SR is off by up to a tick.
        XCTAssertEqual(rtt ?? 0, 80, accuracy: 6)
        XCTAssertTrue(pair.a.output.published.count >= 25, "figures every 200 ms")
    }

    func testATamperedPacketIsRefusedCountedAndNeverPlayed() {
        var pair = RTPStreamPair(configure: Self.exactFrames)
        pair.run(.seconds(1))
        // A's next packet, changed in its payload on the way.
        pair.a.output.sent.removeAll()
        var frame = [Int16](repeating: 0, count: 960)
        frame.withUnsafeMutableBufferPointer { pair.a.stream.send(frame: $0, at: pair.now, output: &pair.a.output) }
        var tampered = pair.a.output.sent[0].bytes
        tampered[20] ^= 0xFF
        pair.a.output.sent.removeAll()
        pair.inject(tampered, from: RTPStreamPair.addressA, toB: true)
        XCTAssertEqual(pair.b.stream.statistics(at: pair.now).srtpAuthFailures, 1)
        // The same packet replayed, untampered, twice: the second is a replay.
        pair.run(.milliseconds(20))
        let replayed = try? XCTUnwrap(pair.wire.first { $0.toB && $0.bytes[1] & 0x7F == 0 }?.bytes, "an RTP packet from A in flight")
        pair.run(.milliseconds(100))
        if let replayed { pair.inject(replayed, from: RTPStreamPair.addressA, toB: true) }
        XCTAssertGreaterThanOrEqual(pair.b.stream.statistics(at: pair.now).srtpReplayFailures, 1)
        pair.run(.seconds(1))
        XCTAssertGreaterThan(RTPStreamPair.intactFrames(in: Array(pair.b.output.played.suffix(960 * 40))).continuing, 35, "the call goes on")
    }

    func testAnotherKeyIsRefusedAndNothingPlays() {
        var pair = RTPStreamPair(protectionKeys: (7, 8), configure: Self.exactFrames)
        pair.b.stream.receiveProtection = FakeProtection(key: 99)
        pair.run(.seconds(2))
        let stats = pair.b.stream.statistics(at: pair.now)
        XCTAssertEqual(stats.packetsReceived, 0)
        XCTAssertGreaterThan(stats.srtpAuthFailures, 90)
        XCTAssertEqual(RTPStreamPair.intactFrames(in: pair.b.output.played).intact, 0)
    }

    func testForgedPacketsFromAnotherSourceAreCountedNotPlayed() {
        var pair = RTPStreamPair(protectionKeys: nil, configure: Self.exactFrames)
        pair.run(.seconds(1))
        // A forger interleaves packets with its own SSRC (plain RTP: anybody can send them).
        var forger = RTPStream(
            configuration: AudioStreamConfiguration(localAddress: RTPStreamPair.addressA, codec: .pcmu, encryption: .unencrypted),
            encoder: FakePCMCodec(), decoder: FakePCMCodec(), protection: nil)
        let mallory = try! SocketAddress(host: "10.0.0.66", port: 666)
        forger.setRemote(RemoteEndpoints(rtp: RTPStreamPair.addressB, rtcp: nil))
        var forged = RecordingOutput()
        var loud = [Int16](repeating: 20_000, count: 960)
        for _ in 0..<50 {
            loud.withUnsafeMutableBufferPointer { forger.send(frame: $0, at: pair.now, output: &forged) }
            for datagram in forged.sent { pair.inject(datagram.bytes, from: mallory, toB: true) }
            forged.sent.removeAll()
            pair.run(.milliseconds(20))
        }
        let stats = pair.b.stream.statistics(at: pair.now)
        XCTAssertEqual(stats.foreignSourcePackets, 50)
        XCTAssertEqual(stats.remoteSSRC, 0xA)
        XCTAssertFalse(pair.b.output.played.contains(20_000), "nothing of the forgery plays")
        XCTAssertGreaterThan(RTPStreamPair.intactFrames(in: Array(pair.b.output.played.suffix(960 * 50))).continuing, 45)
    }

    func testAuthenticatedMediaFromANewAddressMovesTheStreamThere() {
        var pair = RTPStreamPair(configure: Self.exactFrames)
        // Jitter reorders: packets sent before the move arrive after some sent since.
        pair.jitter = .milliseconds(40)
        pair.run(.seconds(1))
        // A's network changes: its packets now come from another address (a renumbering).
        let moved = try! SocketAddress(host: "10.9.9.9", port: 4100)
        pair.a.address = moved
        pair.run(.seconds(1))
        XCTAssertEqual(pair.b.stream.remote?.rtp, moved, "B sends where A's authenticated media comes from")
        XCTAssertEqual(pair.b.stream.statistics(at: pair.now).remoteAddressSwitches, 1, "once: a late packet from the old address does not move it back")
        // Without protection the same move proves nothing and changes nothing.
        var plain = RTPStreamPair(protectionKeys: nil, configure: Self.exactFrames)
        plain.run(.seconds(1))
        plain.a.address = moved
        plain.run(.seconds(1))
        XCTAssertEqual(plain.b.stream.remote?.rtp, RTPStreamPair.addressA)
    }

    func testDigitsGoOutAsTelephoneEventsAndAreReportedOnce() {
        var pair = RTPStreamPair()
        pair.run(.seconds(1))
        pair.a.stream.sendDigits(["1", "#"])
        XCTAssertTrue(pair.a.stream.isSendingDigits)
        pair.run(.seconds(1))
        XCTAssertFalse(pair.a.stream.isSendingDigits)
        XCTAssertEqual(pair.b.output.reported, [.telephoneEvent(code: 1, duration: 800), .telephoneEvent(code: 11, duration: 800)])
    }

    func testAnEventWhoseEndPacketsAreAllLostIsReportedOnceWhenTheNextEventOrAudioShowsItOver() {
        var pair = RTPStreamPair(protectionKeys: nil)
        // Every end packet (payload type 101, E bit set) is lost.
        pair.dropsOnWire = { bytes in bytes.count >= 16 && bytes[1] & 0x7F == 101 && bytes[13] & 0x80 != 0 }
        pair.run(.seconds(1))
        pair.a.stream.sendDigits(["1", "#"])
        pair.run(.seconds(1))
        let reported = pair.b.output.reported
        XCTAssertEqual(reported.count, 2, "\(reported)")
        guard reported.count == 2, case .telephoneEvent(let first, let firstDuration) = reported[0],
            case .telephoneEvent(let second, let secondDuration) = reported[1]
        else { return XCTFail("\(reported)") }
        XCTAssertEqual([first, second], [1, 11], "in order: the # showed the 1 over, the audio after it the #")
        for duration in [firstDuration, secondDuration] {
            XCTAssertTrue((400...800).contains(duration), "the last duration seen before the lost end: \(duration)")
        }
        pair.run(.seconds(1))
        XCTAssertEqual(pair.b.output.reported.count, 2, "and never again")
    }

    func testByeEndsTheSessionAtThePeerAndNothingIsSentAfter() {
        var pair = RTPStreamPair()
        pair.run(.seconds(1))
        pair.a.stream.sendBye(at: pair.now, output: &pair.a.output)
        XCTAssertTrue(pair.a.stream.hasSentBye)
        let sentBefore = pair.a.stream.statistics(at: pair.now).rtcpSent
        pair.run(.milliseconds(50))
        XCTAssertEqual(pair.b.output.reported, [.remoteBye])
        XCTAssertEqual(pair.a.stream.statistics(at: pair.now).rtcpSent, sentBefore, "no report after the BYE")
    }

    func testOnlyThePeersNewKeyReplacesOnlyTheInboundContext() {
        var pair = RTPStreamPair(protectionKeys: (7, 8), configure: Self.exactFrames)
        pair.run(.seconds(1))
        // B re-keys (a re-INVITE's answer): B seals with 9 from now, and A opens with 9.
        pair.b.stream.adopt(
            RTPStreamChange(configuration: pair.b.stream.configuration, codec: nil, send: .replaced(with: FakeProtection(key: 9)), receive: .unchanged))
        pair.a.stream.adopt(
            RTPStreamChange(configuration: pair.a.stream.configuration, codec: nil, send: .unchanged, receive: .replaced(with: FakeProtection(key: 9))))
        pair.run(.seconds(1))
        XCTAssertGreaterThan(RTPStreamPair.intactFrames(in: Array(pair.a.output.played.suffix(960 * 30))).continuing, 25, "A takes B's new key")
        XCTAssertGreaterThan(RTPStreamPair.intactFrames(in: Array(pair.b.output.played.suffix(960 * 30))).continuing, 25, "B still takes A's old one")
        XCTAssertEqual(pair.a.stream.statistics(at: pair.now).renegotiations, 1)
    }

    func testStunAndDTLSAtTheMediaPortAreNotTakenForMedia() {
        var pair = RTPStreamPair()
        pair.run(.milliseconds(200))
        pair.inject([0x00, 0x01, 0x00, 0x00] + [UInt8](repeating: 0, count: 16), from: RTPStreamPair.addressA, toB: true)  // STUN
        pair.inject([22, 0xFE, 0xFD] + [UInt8](repeating: 0, count: 20), from: RTPStreamPair.addressA, toB: true)  // DTLS
        pair.inject([], from: RTPStreamPair.addressA, toB: true)
        XCTAssertEqual(pair.b.stream.statistics(at: pair.now).malformedPackets, 3)
        XCTAssertEqual(MediaDatagramKind(UnsafeRawBufferPointer(start: nil, count: 0)), .unknown)
        for (byte, kind) in [(UInt8(0), MediaDatagramKind.stun), (3, .stun), (17, .zrtp), (20, .dtls), (63, .dtls), (64, .turnChannel), (128, .rtpOrRTCP), (191, .rtpOrRTCP), (200, .unknown)] {
            XCTAssertEqual([byte].withUnsafeBytes { MediaDatagramKind($0) }, kind, "first byte \(byte)")
        }
    }

    func testMutedAndHeldStreamsSendSilenceAndHoldPlaysNothing() {
        var pair = RTPStreamPair(configure: Self.exactFrames)
        pair.run(.seconds(1))
        pair.a.stream.isMuted = true
        pair.b.stream.isOnHold = true
        // What was buffered or on the wire when the switches went plays out first.
        pair.run(.milliseconds(200))
        pair.b.output.played.removeAll()
        pair.a.output.played.removeAll()
        pair.run(.seconds(1))
        XCTAssertTrue(pair.b.output.played.allSatisfy { $0 == 0 }, "held: nothing plays")
        XCTAssertEqual(pair.b.stream.statistics(at: pair.now).inputLevel, 0, "held: silence is sent")
        XCTAssertEqual(pair.a.stream.statistics(at: pair.now).inputLevel, 0, "muted: silence is sent")
        XCTAssertEqual(RTPStreamPair.intactFrames(in: pair.a.output.played).intact, 0, "A hears B's silence")
        XCTAssertGreaterThan(pair.a.stream.statistics(at: pair.now).packetsSent, 95, "muted still sends")
    }
}

/// RFC 6464 levels in the peer's packets (RFC 8285 one- and two-byte elements).
final class RTPStreamAudioLevelTests: XCTestCase {
    /// A's next packet, unprotected, with `elements` in its header extension (`twoByte`: RFC
    /// 8285's two-byte form).
    private func packet(_ pair: inout RTPStreamPair, elements: [RTPHeaderExtensionElement], twoByte: Bool = false) throws -> [UInt8] {
        pair.a.output.sent.removeAll()
        let frame = [Int16](repeating: 0, count: 960)
        var copy = frame
        copy.withUnsafeMutableBufferPointer { pair.a.stream.send(frame: $0, at: pair.now, output: &pair.a.output) }
        var parsed = try RTPPacket(parsing: pair.a.output.sent[0].bytes)
        pair.a.output.sent.removeAll()
        parsed.header.extension = twoByte ? try .twoByte(elements) : try .oneByte(elements)
        return try parsed.serialized()
    }

    func testTheNegotiatedElementsLevelIsTakenOthersAreNot() throws {
        var pair = RTPStreamPair(protectionKeys: nil) { $0.audioLevelExtensionID = 5 }
        pair.run(.milliseconds(200))
        // a's own packets carry levels too (it sends them once negotiated): start counting here.
        _ = pair.b.stream.takeReceivedAudioLevel()
        let levelsBefore = pair.b.stream.audioLevelsReceived
        // Level 23 −dBov with the voice bit set, behind another extension (abs-send-time at 3).
        let withLevel = try packet(&pair, elements: [.init(id: 3, data: [1, 2, 3]), .init(id: 5, data: [0x80 | 23])])
        pair.inject(withLevel, from: RTPStreamPair.addressA, toB: true)
        XCTAssertEqual(pair.b.stream.takeReceivedAudioLevel(), 23)
        XCTAssertNil(pair.b.stream.takeReceivedAudioLevel(), "taken once")
        // Two-byte form, level 127 (silence).
        let twoByte = try packet(&pair, elements: [.init(id: 5, data: [127])], twoByte: true)
        pair.inject(twoByte, from: RTPStreamPair.addressA, toB: true)
        XCTAssertEqual(pair.b.stream.takeReceivedAudioLevel(), 127)
        // Another ID only: nothing.
        let other = try packet(&pair, elements: [.init(id: 4, data: [0x80 | 10])])
        pair.inject(other, from: RTPStreamPair.addressA, toB: true)
        XCTAssertNil(pair.b.stream.takeReceivedAudioLevel())
        XCTAssertEqual(pair.b.stream.audioLevelsReceived, levelsBefore + 2)
    }

    func testWithoutNegotiationOrWithABrokenExtensionNothingIsTakenAndThePacketStillPlays() throws {
        var plain = RTPStreamPair(protectionKeys: nil)
        plain.run(.milliseconds(200))
        let withLevel = try packet(&plain, elements: [.init(id: 5, data: [0x80 | 23])])
        plain.inject(withLevel, from: RTPStreamPair.addressA, toB: true)
        XCTAssertNil(plain.b.stream.takeReceivedAudioLevel(), "not negotiated: not read")

        var pair = RTPStreamPair(protectionKeys: nil) { $0.audioLevelExtensionID = 5 }
        pair.run(.milliseconds(200))
        _ = pair.b.stream.takeReceivedAudioLevel()
        var broken = try packet(&pair, elements: [.init(id: 5, data: [0x80 | 23])])
        // The element claims 16 bytes where the extension holds 3: the walk stops, nothing is taken.
        broken[16] = 5 << 4 | 0x0F
        let received = pair.b.stream.statistics(at: pair.now).packetsReceived
        pair.inject(broken, from: RTPStreamPair.addressA, toB: true)
        XCTAssertNil(pair.b.stream.takeReceivedAudioLevel())
        XCTAssertEqual(pair.b.stream.statistics(at: pair.now).packetsReceived, received + 1, "the packet itself is taken")
    }

    /// With the extension negotiated, every packet carries its frame's RFC 6464 level (RMS in
    /// −dBov, the voice bit for speech levels), and the peer takes it.
    func testSentPacketsCarryTheirFramesLevel() throws {
        var pair = RTPStreamPair(protectionKeys: nil) { $0.audioLevelExtensionID = 5 }
        pair.run(.milliseconds(100))
        pair.a.output.sent.removeAll()
        // A 1 kHz sine of amplitude 3,277: RMS 2,317, 23 dB under full scale.
        var tone = (0..<960).map { Int16((3_277 * sin(2 * Double.pi * 1_000 * Double($0) / 48_000)).rounded()) }
        tone.withUnsafeMutableBufferPointer { pair.a.stream.send(frame: $0, at: pair.now, output: &pair.a.output) }
        var silence = [Int16](repeating: 0, count: 960)
        silence.withUnsafeMutableBufferPointer { pair.a.stream.send(frame: $0, at: pair.now, output: &pair.a.output) }
        let packets = try pair.a.output.sent.filter { $0.component == .rtp }.map { try RTPPacket(parsing: $0.bytes) }
        XCTAssertEqual(packets.count, 2)
        let levels = try packets.map { try XCTUnwrap(try $0.header.extension?.elements()?.first { $0.id == 5 }?.data.first) }
        XCTAssertEqual(levels, [0x80 | 23, 127], "23 −dBov with the voice bit, then silence")
        let carried = pair.a.output.sent
        pair.a.output.sent.removeAll()
        for packet in carried where packet.component == .rtp { pair.inject(packet.bytes, from: RTPStreamPair.addressA, toB: true) }
        XCTAssertEqual(pair.b.stream.takeReceivedAudioLevel(), 127, "the peer reads the newest")
    }
}
