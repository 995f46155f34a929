import Foundation
import XCTest

@testable import VoiceCore
import VoiceMediaTypes
import VoiceRTP
import VoiceSupport
import VoiceMedia
import VoiceICE
import VoiceAddress

final class CallStatsReportTests: XCTestCase {
    private func streamStats() -> AudioStreamStats {
        var s = AudioStreamStats()
        s.timestamp = .milliseconds(12_345)
        s.codec = "opus"
        s.mediaCodec = .opus(OpusSettings.voice)
        s.payloadType = 111
        s.ssrc = 0x1234
        s.remoteSSRC = 0x5678
        s.packetsSent = 500
        s.bytesSent = 40_000
        s.packetsReceived = 480
        s.bytesReceived = 38_000
        s.packetsLost = 20
        s.fractionLost = 0.04
        s.jitterMs = 12.5
        s.rttMs = 85
        s.remoteFractionLost = 0.01
        s.remoteJitterMs = 3.25
        s.remotePacketsLost = 5
        s.inputLevel = 9000
        s.outputLevel = 7000
        s.mos = 4.1
        s.jitterBuffer.playoutDelay = .milliseconds(60)
        return s
    }

    func testReportMapsEveryField() {
        let report = CallStatsReport(streamStats: streamStats(), callSid: "CA42")
        XCTAssertEqual(report.callSid, "CA42")
        XCTAssertEqual(report.timestamp, .milliseconds(12_345))
        XCTAssertEqual(report.roundTripTimeMs, 85)
        XCTAssertEqual(
            report.localAudioTrackStats,
            [
                CallLocalAudioTrackStats(
                    codec: .opus(), payloadType: 111, ssrc: 0x1234, packetsSent: 500, bytesSent: 40_000, packetsLost: 5,
                    fractionLost: 0.01, jitterMs: 3.25, roundTripTimeMs: 85, audioLevel: 9000)
            ])
        XCTAssertEqual(
            report.remoteAudioTrackStats,
            [
                CallRemoteAudioTrackStats(
                    codec: .opus(), ssrc: 0x5678, packetsReceived: 480, bytesReceived: 38_000, packetsLost: 20,
                    fractionLost: 0.04, jitterMs: 12.5, jitterBufferDelayMs: 60, audioLevel: 7000, mos: 4.1)
            ])
        XCTAssertEqual(report.localAudioTrack?.packetsSent, 500)
        XCTAssertEqual(report.remoteAudioTrack?.mos, 4.1)
    }

    /// The transport's figures arrive typed: the pair's ends, WebRTC's DTLS state, the profile.
    /// The W3C-named counters come from the stream's, at 48 kHz whatever the RTP clock.
    func testWebRTCNamedCountersAreTheStreamsAt48kHz() throws {
        var s = streamStats()
        s.inbound.played(samples: 960, concealed: false, peak: 16_384)
        s.inbound.played(samples: 960, concealed: true, peak: 0)
        s.timeStretchAddedSamples = 120
        s.timeStretchRemovedSamples = 240
        s.jitterBuffer.emittedUnits = 8_000
        s.jitterBuffer.emittedDelay = 480
        s.sendBitrate = 64_000
        let opus = CallStatsReport(streamStats: s, callSid: nil)
        let remote = try XCTUnwrap(opus.remoteAudioTrack)
        XCTAssertEqual(remote.totalSamplesReceived, 1_920)
        XCTAssertEqual(remote.concealedSamples, 960)
        XCTAssertEqual(remote.silentConcealedSamples, 960)
        XCTAssertEqual(remote.concealmentEvents, 1)
        XCTAssertEqual(remote.insertedSamplesForDeceleration, 120)
        XCTAssertEqual(remote.removedSamplesForAcceleration, 240)
        XCTAssertEqual(remote.jitterBufferEmittedCount, 8_000)
        XCTAssertEqual(remote.jitterBufferDelay, 480)
        XCTAssertEqual(remote.totalSamplesDuration, 0.04, accuracy: 1e-12)
        XCTAssertEqual(remote.totalAudioEnergy, pow(16_384.0 / 32_767, 2) * 0.02, accuracy: 1e-12)
        XCTAssertEqual(opus.localAudioTrack?.targetBitrate, 64_000)
        s.mediaCodec = .pcmu
        let pcmu = try XCTUnwrap(CallStatsReport(streamStats: s, callSid: nil).remoteAudioTrack)
        XCTAssertEqual(pcmu.jitterBufferEmittedCount, 48_000, "a second at 8 kHz is 48,000 samples at 48 kHz")
        XCTAssertEqual(pcmu.jitterBufferDelay, 2_880, "the waits scale with the samples: the mean wait is the same")
    }

    func testTransportFiguresAreTyped() throws {
        var s = streamStats()
        let local = try XCTUnwrap(IPAddress("10.0.0.2")), remote = try XCTUnwrap(IPAddress("2001:db8::9"))
        s.selectedCandidatePair = ICESelectedPair(
            localKind: .host, local: TransportAddress(ip: local, port: 40_000), remoteKind: .relayed,
            remote: TransportAddress(ip: remote, port: 5_000))
        s.dtlsState = .connected
        s.dtlsSRTPSuite = .aeadAES256GCM
        s.mediaCodec = .pcma
        let report = CallStatsReport(streamStats: s, callSid: nil)
        let pair = try XCTUnwrap(report.transport.selectedCandidatePair)
        XCTAssertEqual(pair.local.candidateType, .host)
        XCTAssertEqual(pair.local.address, "10.0.0.2")
        XCTAssertEqual(pair.local.port, 40_000)
        XCTAssertEqual(pair.remote.candidateType, .relayed)
        XCTAssertEqual(pair.description, "host 10.0.0.2:40000 -> relay [2001:db8::9]:5000")
        XCTAssertEqual(report.transport.dtlsState, .connected)
        XCTAssertEqual(report.transport.srtpCipher, .aeadAES256GCM)
        XCTAssertEqual(report.localAudioTrack?.codec, .pcma)
        XCTAssertNil(CallStatsReport(streamStats: AudioStreamStats(), callSid: nil).localAudioTrack?.codec, "none before negotiation")
    }

    func testRefusedPacketsAreReportedBySecurityCounter() {
        var s = streamStats()
        s.srtpAuthFailures = 7
        s.srtpReplayFailures = 3
        s.malformedPackets = 2
        s.foreignSourcePackets = 150
        let report = CallStatsReport(streamStats: s, callSid: nil)
        XCTAssertEqual(
            report.security,
            CallSecurityStats(srtpAuthFailures: 7, srtpReplays: 3, malformedPackets: 2, rejectedSourcePackets: 150))
        XCTAssertEqual(report.security.total, 162)
        XCTAssertEqual(CallStatsReport(streamStats: streamStats(), callSid: nil).security.total, 0)
    }

    func testMosIsAbsentBeforeAnyPacketArrives() {
        var s = streamStats()
        s.packetsReceived = 0
        XCTAssertNil(CallStatsReport(streamStats: s, callSid: nil).remoteAudioTrack?.mos)
        XCTAssertNil(CallStatsReport(streamStats: AudioStreamStats(), callSid: nil).roundTripTimeMs)
    }

    func testEmptyReportHasNoTracks() {
        let report = CallStatsReport()
        XCTAssertNil(report.localAudioTrack)
        XCTAssertNil(report.remoteAudioTrack)
        XCTAssertNil(report.callSid)
    }
}
