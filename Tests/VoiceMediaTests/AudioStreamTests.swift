import VoiceEmbedded
import Foundation
import XCTest
@testable import VoiceMedia
import VoiceTestKit
import VoiceTestAudio
import VoiceMediaTypes
@testable import VoiceRTP
import VoiceSupport

/// End-to-end tests: real streams on loopback UDP, SRTP, Opus/G.711, in-memory devices in real time.
final class AudioStreamTests: XCTestCase {
    let speech = TestSignals.speechLike(seconds: 3)
    let tones = TestSignals.multiTone([(440, 5_000), (1_250, 3_000), (3_100, 2_000)], seconds: 3)
    /// Packets a new source sends before it is played (it proves itself first).
    let probation = UInt64(RTPSourceGate().minimumRun - 1)

    /// Runs `call` for `seconds`, then on (up to 20 s more) until `enough` holds. A loaded machine
    /// sends fewer packets a second (a paced device that stalls drops buffers rather than burst),
    /// so counts are waited for, not expected by a deadline.
    private func run(_ call: LoopbackCall, seconds: Double, until enough: () -> Bool = { true }) throws {
        try call.start()
        PollingWait.sleep(seconds)
        _ = PollingWait.until(timeout: 20, every: 0.02, enough)
        call.stop()
    }

    func testSRTPOpusCarriesAudioBothWaysAndStatsAgree() throws {
        let call = try LoopbackCall.virtual(signalA: speech, signalB: tones)
        try call.start()
        PollingWait.sleep(3.6)
        XCTAssertTrue(PollingWait.until(timeout: 20, every: 0.02) { call.a.stats.packetsSent > 150 }, "the call runs")
        // Every packet B has sent so far reaches A (a receiver reads within a tick, or a stall later).
        let sentByB = call.b.stats.packetsSent
        XCTAssertTrue(
            PollingWait.until(timeout: 5) { call.a.stats.packetsReceived >= sentByB - probation },
            "B→A: every packet after the source's probation arrives: \(call.a.stats.packetsReceived) of \(sentByB)")
        // A stops first; then B reads what A sent last before it stops too.
        call.a.stop()
        let sentByA = call.a.stats.packetsSent
        _ = PollingWait.until(timeout: 5) { call.b.stats.packetsReceived >= sentByA - probation }
        call.stop()
        let atB = SpectralSimilarity(played: speech, in: call.deviceB.recordedSamples)
        let atA = SpectralSimilarity(played: tones, in: call.deviceA.recordedSamples)
        XCTAssertGreaterThan(atB.score, 0.8, "A→B: \(atB)")
        XCTAssertGreaterThan(atA.score, 0.8, "B→A: \(atA)")
        // The latency the call reached: a stall can raise it for a while, not lower it.
        XCTAssertLessThan(atB.latencyMilliseconds() ?? .max, 250, "latency on loopback should be well under 250 ms: \(atB)")
        let a = call.a.stats, b = call.b.stats
        XCTAssertGreaterThan(a.packetsSent, 150)
        XCTAssertEqual(b.packetsReceived, a.packetsSent - probation, "every packet after the source's probation arrives")
        XCTAssertLessThanOrEqual(a.packetsReceived, b.packetsSent)
        XCTAssertLessThanOrEqual(a.bytesSent - b.bytesReceived, probation * 400)
        XCTAssertEqual(b.packetsLost, 0)
        XCTAssertEqual(a.codec, "opus")
        XCTAssertEqual(b.remoteSSRC, call.a.configuration.ssrc)
        XCTAssertEqual(a.srtpAuthFailures + b.srtpAuthFailures, 0)
        XCTAssertGreaterThan(a.mos, 4.0)
    }

    func testImpairedLinkStaysContinuousAndConcealsOrRecovers() throws {
        let impairment = NetworkImpairment(lossRate: 0.05, jitter: .milliseconds(30), reorderRate: 0.03, seed: 42)
        // A plays the tone that B's recording is checked against; B talks, so that its encoder has
        // speech to protect. (For a steady tone SILK's voice detection soon finds no speech, after
        // some 0.7 s, and libopus codes no redundancy for frames without it: what a tone's sender
        // sends with FEC on depends only on how early the first report comes.)
        let call = try LoopbackCall.virtual(
            signalA: tones, signalB: speech, loop: true, impairmentAToB: impairment, impairmentBToA: impairment,
            rtcpInterval: .milliseconds(500))
        // B's sender, watched while the call runs: the first snapshot after A reported loss. The
        // call runs 3.6 s, and on (up to 20 s) until five packets with redundancy followed it.
        var protected: AudioStreamStats?
        func redundancyFollowed() -> Bool { protected.map { call.b.stats.fecPacketsSent >= $0.fecPacketsSent + 5 } ?? false }
        try call.start()
        let clock = call.engine.clock
        let start = clock.now()
        while clock.now() - start < .milliseconds(3_600) || !redundancyFollowed() && clock.now() - start < .seconds(20) {
            let s = call.b.stats
            if protected == nil, s.remoteFractionLost >= OpusLossAdaptation.Parameters().cleanFraction { protected = s }
            PollingWait.sleep(0.02)
        }
        call.stop()
        let out = call.deviceB.recordedSamples
        // Window by window, the jitter buffer's time-stretching does not dilute the comparison (as
        // it did a single lag's, which asked only for 0.5): the tone comes through, concealed where lost.
        let alignment = SpectralSimilarity(played: tones, in: out)
        XCTAssertGreaterThan(alignment.score, 0.8, "\(alignment)")
        // The reference is a continuous tone: once playout has started, a run of exact zeros is a gap.
        // A frame the jitter buffer fails to fill would be 960 zeros (20 ms). Runs of 350-410 zeros
        // have been seen only with every core saturated by other work, with no stream or jitter-buffer
        // counter moving, so the bound is one device period (480). A device period the stream
        // could not fill in time (the media thread stalled by a loaded machine) is counted as a
        // render underrun and played as up to 480 zeros; each may lengthen a gap by as much.
        // The region runs from 100 ms after playout starts to 200 ms before the sender's first 3 s
        // of tone can have ended there (its first packets, still on probation, are not played). It
        // is not taken from the alignment's lag: with the jitter buffer stretching time, the
        // best single lag of a periodic signal can land 340 ms late, and a region placed by it
        // then reaches the silence after the tone ends.
        let playoutStart = try XCTUnwrap(out.firstIndex { $0 != 0 }, "nothing was played")
        let region = (playoutStart + 4_800)..<(playoutStart + tones.count - 9_600)
        let b = call.b.stats
        XCTAssertLessThan(
            AudioComparison.longestSilentRun(out, in: region), 480 * (1 + Int(b.renderUnderruns)),
            "no gaps in the rendered timeline (render underruns \(b.renderUnderruns), jitter buffer \(b.jitterBuffer))")
        XCTAssertGreaterThan(b.packetsLost, 0)
        XCTAssertGreaterThan(b.jitterBuffer.concealedFrames + b.jitterBuffer.recoveredFrames, 0)
        XCTAssertGreaterThan(b.jitterMs, 1)
        let reported = try XCTUnwrap(protected, "the peer reports loss")
        XCTAssertTrue(reported.fecEnabled, "the peer reported loss, so FEC is on")
        XCTAssertGreaterThan(reported.sendBitrate, OpusSettings.voice.bitrate, "the bitrate rose to make room for it")
        XCTAssertGreaterThanOrEqual(
            call.b.stats.fecPacketsSent, reported.fecPacketsSent + 5, "and libopus really sends redundancy from then on")
        XCTAssertGreaterThan(call.droppedPackets, 0)
    }

    /// With random loss and jitter, a lost frame whose successor arrives in time is rebuilt from
    /// that successor's FEC data, not concealed; and the sender protects from the first packet.
    func testLostFramesAreRecoveredFromTheNextPacketsFEC() throws {
        let impairment = NetworkImpairment(lossRate: 0.05, jitter: .milliseconds(40), seed: 77)
        let call = try LoopbackCall.virtual(
            signalA: speech, signalB: speech, loop: true, impairmentAToB: impairment, impairmentBToA: impairment)
        try run(call, seconds: 4)
        let a = call.a.stats, b = call.b.stats
        XCTAssertGreaterThan(b.packetsLost, 5)
        XCTAssertLessThan(a.rtcpReceived, 3, "few reports in 4 s at the default interval: the protection is the initial one")
        XCTAssertGreaterThan(a.fecPacketsSent, 50, "redundancy from the start of the call")
        XCTAssertGreaterThanOrEqual(
            b.jitterBuffer.recoveredFrames * 100, Int(b.packetsLost) * 80,
            "most losses recovered by FEC (\(b.jitterBuffer.recoveredFrames) of \(b.packetsLost); concealed \(b.jitterBuffer.concealedFrames))")
        // W3C's fecPacketsReceived/Discarded: what B read of A's LBRR, and what it needed.
        let fec = (received: b.inbound.fecPacketsReceived, discarded: b.inbound.fecPacketsDiscarded)
        XCTAssertLessThanOrEqual(fec.received, a.fecPacketsSent, "only what A sent")
        XCTAssertGreaterThanOrEqual(fec.received + UInt64(b.packetsLost) + 5, a.fecPacketsSent, "all but the lost and those in flight")
        let needed = Int(fec.received - fec.discarded)
        XCTAssertGreaterThanOrEqual(needed, b.jitterBuffer.recoveredFrames, "each rebuilt frame used one: \(fec)")
        XCTAssertGreaterThan(needed, 0)
        XCTAssertGreaterThan(fec.discarded, fec.received / 2, "on most packets the frame before had come")

        // On a clean link in order, the frame before has always come: every one is discarded.
        let clean = try LoopbackCall.virtual(signalA: speech, signalB: speech, loop: true)
        try run(clean, seconds: 2)
        let inbound = clean.b.stats.inbound
        XCTAssertGreaterThan(inbound.fecPacketsReceived, 20, "A protects from the first packet")
        XCTAssertEqual(inbound.fecPacketsDiscarded, inbound.fecPacketsReceived)
    }

    /// At 32 kbps and complexity 5 libopus sends no redundancy for a small loss hint; the sender
    /// sees that in its own packets and raises the hint until redundancy goes out.
    func testALowBitrateSenderRaisesItsHintUntilFECIsReallySent() throws {
        let low = OpusSettings(bitrate: 32_000, maxAverageBitrate: 32_000)
        let loss = NetworkImpairment(lossRate: 0.05, seed: 5)
        let call = try LoopbackCall.virtual(
            codec: .opus(low), signalA: speech, signalB: speech, loop: true, impairmentAToB: loss, impairmentBToA: loss,
            rtcpInterval: .milliseconds(500))
        try run(call, seconds: 4) { call.a.stats.fecPacketsSent > 20 }
        let a = call.a.stats
        XCTAssertTrue(a.fecEnabled)
        XCTAssertGreaterThan(a.packetLossHint, low.packetLossPercent, "raised above the hint that produced nothing")
        XCTAssertGreaterThan(a.fecPacketsSent, 20, "redundancy really went out")
        XCTAssertEqual(a.sendBitrate, 32_000, "never above the negotiated maximum")
    }

    func testWrongSRTPKeyIsRejectedCountedAndNeverPlayed() throws {
        let call = try LoopbackCall.virtual(signalA: tones, signalB: tones) { config in
            if case .srtp(let local, _) = config.encryption {
                config.encryption = .srtp(local: local, remote: SRTPKeyMaterial.random(for: local.suite))
            }
        }
        try run(call, seconds: 1.5) { call.b.stats.srtpAuthFailures > 20 }
        let b = call.b.stats
        XCTAssertGreaterThan(b.srtpAuthFailures, 20)
        XCTAssertEqual(b.packetsReceived, 0)
        XCTAssertEqual(call.deviceB.recordedSamples.map { abs(Int($0)) }.max() ?? 0, 0, "nothing played")
    }

    func testMuteKeepsSendingSilentFrames() throws {
        let call = try LoopbackCall.virtual(signalA: tones, signalB: tones)
        call.a.isMuted = true
        try run(call, seconds: 1.5) { call.b.stats.packetsReceived > 50 }
        let b = call.b.stats
        XCTAssertGreaterThan(b.packetsReceived, 50, "a muted stream still sends")
        let out = call.deviceB.recordedSamples
        XCTAssertLessThan(out.map { abs(Int($0)) }.max() ?? 0, 200, "what arrives is silence")
        XCTAssertEqual(call.a.stats.inputLevel, 0)
        let back = SpectralSimilarity(played: tones, in: call.deviceA.recordedSamples)
        XCTAssertGreaterThan(back.score, 0.8, "the other direction is untouched: \(back)")
    }

    func testHoldSendsSilenceAndStopsPlayback() throws {
        let call = try LoopbackCall.virtual(signalA: tones, signalB: tones)
        call.a.isOnHold = true
        try run(call, seconds: 1.5) { call.a.stats.packetsReceived > 50 }
        XCTAssertLessThan(call.deviceB.recordedSamples.map { abs(Int($0)) }.max() ?? 0, 200)
        XCTAssertEqual(call.deviceA.recordedSamples.map { abs(Int($0)) }.max() ?? 0, 0, "nothing played while on hold")
        XCTAssertGreaterThan(call.a.stats.packetsReceived, 50, "media still arrives during hold")
    }

    func testRTCPMeasuresRoundTripAndReportsNoLoss() throws {
        let call = try LoopbackCall.virtual(signalA: tones, signalB: tones, rtcpInterval: .milliseconds(300))
        try run(call, seconds: 2) { call.a.stats.rtcpReceived > 2 && call.a.stats.rttMs != nil }
        let a = call.a.stats
        let rtt = try XCTUnwrap(a.rttMs, "RTT from LSR/DLSR")
        XCTAssertLessThan(rtt, 50)
        XCTAssertGreaterThanOrEqual(rtt, 0)
        XCTAssertGreaterThan(a.rtcpReceived, 2)
        XCTAssertEqual(a.remoteFractionLost, 0)
        XCTAssertFalse(a.fecEnabled, "no redundancy on a clean link")
        XCTAssertEqual(a.sendBitrate, OpusSettings.voice.bitrate, "and the clean bitrate")
    }

    func testPCMUCarriesAudio() throws {
        let call = try LoopbackCall.virtual(codec: .pcmu, signalA: tones, signalB: speech)
        try run(call, seconds: 3.6)
        let atB = SpectralSimilarity(played: tones, in: call.deviceB.recordedSamples)
        XCTAssertGreaterThan(atB.score, 0.85, "\(atB)")
        XCTAssertEqual(call.b.stats.codec, "PCMU")
        XCTAssertEqual(call.b.stats.payloadType, 0)
    }

    func testUnencryptedWhenOptedIn() throws {
        let call = try LoopbackCall.virtual(encrypted: false, signalA: tones, signalB: tones)
        try run(call, seconds: 1.5)
        let atB = SpectralSimilarity(played: tones, in: call.deviceB.recordedSamples)
        XCTAssertGreaterThan(atB.score, 0.75, "\(atB)")
    }

    func testSeparateRTCPPortAndDSCP() throws {
        let call = try LoopbackCall(signalA: tones, signalB: tones, rtcpInterval: .milliseconds(300)) { config in
            config.rtcpMux = false
            config.enableDSCP = true
        }
        XCTAssertNotNil(call.a.localRTCPAddress)
        XCTAssertEqual(call.a.localRTCPAddress?.port, call.a.localAddress.port + 1)
        try call.a.start(remote: call.b.localAddress, remoteRTCP: call.b.localRTCPAddress, audioDevice: call.deviceA)
        try call.b.start(remote: call.a.localAddress, remoteRTCP: call.a.localRTCPAddress, audioDevice: call.deviceB)
        PollingWait.sleep(1.5)
        XCTAssertEqual(call.a.dscp, 46)
        _ = PollingWait.until(timeout: 20, every: 0.02) { call.a.stats.rtcpReceived > 1 && call.a.stats.rttMs != nil }
        call.stop()
        XCTAssertGreaterThan(call.a.stats.rtcpReceived, 1)
        XCTAssertNotNil(call.a.stats.rttMs)
    }

    func testStartTwiceIsAnErrorAndStopIsIdempotent() throws {
        let call = try LoopbackCall.virtual(signalA: tones, signalB: tones)
        try call.start()
        XCTAssertThrowsError(try call.a.start(remote: call.b.localAddress, audioDevice: nil))
        call.stop()
        call.stop()
    }

    func testInvalidPtimeIsATypedError() throws {
        var config = AudioStreamConfiguration(localAddress: try SocketAddress(host: "127.0.0.1", port: 0), encryption: .unencrypted)
        config.ptime = 25
        XCTAssertThrowsError(try AudioStream(configuration: config)) { error in
            guard case AudioStreamError.invalidConfiguration = error else { return XCTFail("\(error)") }
        }
    }

    func testInvalidPayloadTypesAreTypedErrors() throws {
        var config = AudioStreamConfiguration(localAddress: try SocketAddress(host: "127.0.0.1", port: 0), encryption: .unencrypted)
        config.payloadType = 200
        XCTAssertThrowsError(try AudioStream(configuration: config))
        config.payloadType = 101
        config.telephoneEventPayloadType = 101
        XCTAssertThrowsError(try AudioStream(configuration: config))
    }

    func testMissingSoundCardIsATypedErrorFromStart() throws {
        let stream = try AudioStream(
            configuration: AudioStreamConfiguration(
                localAddress: try SocketAddress(host: "127.0.0.1", port: 0), encryption: .unencrypted))
        let device = try ALSAAudioDevice(name: "no_such_sound_card_here")
        XCTAssertThrowsError(try stream.start(remote: try SocketAddress(host: "127.0.0.1", port: 9), audioDevice: device)) { error in
            guard case AudioStreamError.audioDevice(let e) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(e.kind, .openFailed)
        }
    }

    func testIPv6Loopback() throws {
        let keyA = SRTPKeyMaterial.random(for: .aeadAES128GCM)
        let keyB = SRTPKeyMaterial.random(for: .aeadAES128GCM)
        let local = try SocketAddress(host: "::1", port: 0)
        let a = try AudioStream(configuration: AudioStreamConfiguration(localAddress: local, encryption: .srtp(local: keyA, remote: keyB)))
        let b = try AudioStream(configuration: AudioStreamConfiguration(localAddress: local, encryption: .srtp(local: keyB, remote: keyA)))
        let devA = BufferAudioDevice(captureSamples: tones)
        let devB = BufferAudioDevice(captureSamples: tones)
        try a.start(remote: b.localAddress, audioDevice: devA)
        try b.start(remote: a.localAddress, audioDevice: devB)
        PollingWait.sleep(1.5)
        a.stop()
        // B reads what A sent last (within a tick, or later if the machine stalls it) before it stops.
        let sentByA = a.stats.packetsSent
        _ = PollingWait.until(timeout: 5) { b.stats.packetsReceived >= sentByA - probation }
        b.stop()
        XCTAssertTrue(a.localAddress.isIPv6)
        XCTAssertEqual(b.stats.packetsReceived, a.stats.packetsSent - probation, "all but the source's probation arrive")
        let atB = SpectralSimilarity(played: tones, in: devB.recordedSamples)
        XCTAssertGreaterThan(atB.score, 0.8, "\(atB)")
    }
}

/// Devices whose format is not the stream's 48 kHz mono: the stream converts rate and channels.
final class AudioStreamDeviceFormatTests: XCTestCase {
    func testSixteenKilohertzMonoToFortyEightKilohertzStereo() throws {
        let tones: [(frequency: Double, amplitude: Double)] = [(440, 5_000), (1_250, 3_000)]
        let at16k = TestSignals.multiTone(tones, seconds: 2.5, sampleRate: 16_000)
        let at48k = TestSignals.multiTone(tones, seconds: 2.5, sampleRate: 48_000)
        let stereo48k = at48k.flatMap { [$0, $0] }
        let keyA = SRTPKeyMaterial.random(for: .aesCM128HmacSHA1_80)
        let keyB = SRTPKeyMaterial.random(for: .aesCM128HmacSHA1_80)
        // On the embedded engine's in-memory network, the devices ticked by its audio clock:
        // the subject is the conversion, not the sockets or the timing.
        let engine = MediaEngine.embedded(network: InMemoryMediaNetwork())
        let pacing = try SoftwareAudioPacing.ticked(by: XCTUnwrap(engine.audioClock))
        func stream(_ host: String, _ local: SRTPKeyMaterial, _ remote: SRTPKeyMaterial) throws -> AudioStream {
            let transport = try engine.transports.bind(SocketAddress(host: host, port: 0))
            return try AudioStream(
                configuration: AudioStreamConfiguration(localAddress: transport.localAddress, encryption: .srtp(local: local, remote: remote)),
                engine: engine, transport: transport)
        }
        let a = try stream("10.0.0.1", keyA, keyB)
        let b = try stream("10.0.0.2", keyB, keyA)
        let narrow = BufferAudioDevice(
            format: AudioFormat(sampleRate: 16_000, channels: 1, framesPerBuffer: 160), captureSamples: at16k, pacing: pacing)
        let wideStereo = BufferAudioDevice(
            format: AudioFormat(sampleRate: 48_000, channels: 2, framesPerBuffer: 480), captureSamples: stereo48k, pacing: pacing)
        try a.start(remote: b.localAddress, audioDevice: narrow)
        try b.start(remote: a.localAddress, audioDevice: wideStereo)
        engine.advance(by: .seconds(3))
        a.stop()
        b.stop()
        let recordedStereo = wideStereo.recordedSamples
        let left = stride(from: 0, to: recordedStereo.count - 1, by: 2).map { recordedStereo[$0] }
        let right = stride(from: 1, to: recordedStereo.count, by: 2).map { recordedStereo[$0] }
        XCTAssertEqual(left, right, "mono is copied to both channels")
        let atB = SpectralSimilarity(played: at48k, in: left)
        XCTAssertGreaterThan(atB.score, 0.8, "16 kHz capture arrives at 48 kHz: \(atB)")
        let atA = SpectralSimilarity(played: at16k, in: narrow.recordedSamples, sampleRate: 16_000)
        XCTAssertGreaterThan(atA.score, 0.8, "48 kHz stereo capture arrives at 16 kHz: \(atA)")
    }
}

/// RFC 4733 digits end to end: sent by one stream, reported once each by the other.
final class AudioStreamDTMFTests: XCTestCase {
    func testDigitsArriveInOrderAsTelephoneEvents() throws {
        let tones = TestSignals.multiTone([(440, 4_000)], seconds: 3)
        let call = try LoopbackCall.virtual(signalA: tones, signalB: tones)
        let received = Locked<[AudioStreamEvent]>([])
        try call.a.start(remote: call.b.localAddress, audioDevice: call.deviceA)
        try call.b.start(remote: call.a.localAddress, audioDevice: call.deviceB) { event in
            received.withLock { $0.append(event) }
        }
        try call.a.sendDigits("1w#9")
        XCTAssertThrowsError(try call.a.sendDigits("x"))
        func codes() -> [UInt8] {
            received.withLock { events in
                events.compactMap { event -> UInt8? in
                    if case .telephoneEvent(let code, _) = event { return code }
                    return nil
                }
            }
        }
        // The digits take about a second (100 ms each, a 500 ms pause); on a loaded machine longer.
        PollingWait.sleep(1.5)
        _ = PollingWait.until(timeout: 20, every: 0.02) { codes().count >= 3 }
        call.a.stop()
        let sentByA = call.a.stats.packetsSent
        _ = PollingWait.until(timeout: 5) { call.b.stats.packetsReceived >= sentByA - UInt64(RTPSourceGate().minimumRun - 1) }
        call.stop()
        XCTAssertEqual(codes(), [1, 11, 9])
        if case .telephoneEvent(_, let duration)? = received.withLock({ $0.first }) {
            XCTAssertEqual(duration, 4_800, "100 ms at 48 kHz")
        }
        XCTAssertEqual(call.b.stats.srtpAuthFailures, 0)
        XCTAssertEqual(call.b.stats.packetsLost, 0, "event packets fill their sequence numbers")
        XCTAssertEqual(call.b.stats.packetsReceived, call.a.stats.packetsSent - UInt64(RTPSourceGate().minimumRun - 1), "all but the probation")
    }
}
