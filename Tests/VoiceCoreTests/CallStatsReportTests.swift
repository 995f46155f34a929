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
