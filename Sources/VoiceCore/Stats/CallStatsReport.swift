import VoiceMedia
import VoiceRTP
import VoiceSupport

/// A snapshot of one call's media statistics, as returned by `Call.getStats(_:)` and
/// `Call.stats()` (Twilio's `TVOStatsReport`). One call has one media stream, so the track
/// arrays hold one element each once media is set up, and are empty before.
public struct CallStatsReport: Hashable, Sendable {
    /// The call's SID (Twilio's `peerConnectionId` slot); `nil` before the call has one.
    public var callSid: String?
    /// When the snapshot was taken: time since an arbitrary origin of the monotonic clock (compare two reports).
    public var timestamp: Duration
    /// Round-trip time in ms from RTCP; `nil` until measured.
    public var roundTripTimeMs: Double?
    /// What the call sends.
    public var localAudioTrackStats: [CallLocalAudioTrackStats]
    /// What the call receives.
    public var remoteAudioTrackStats: [CallRemoteAudioTrackStats]
    /// What the call's media refused (forged, tampered, replayed or malformed packets).
    public var security: CallSecurityStats
    /// What the call's audio device went through (xruns, suspends, interruptions).
    public var audioDevice: CallAudioDeviceStats
    /// The voice processing on the call's audio device (echo cancellation and its figures).
    public var audioProcessing = CallAudioProcessingStats()
    /// The ICE candidate pair and DTLS state of a DTLS-SRTP call.
    public var transport = CallTransportStats()

    /// Creates a report.
    package init(
        callSid: String? = nil, timestamp: Duration = .zero, roundTripTimeMs: Double? = nil,
        localAudioTrackStats: [CallLocalAudioTrackStats] = [], remoteAudioTrackStats: [CallRemoteAudioTrackStats] = [],
        security: CallSecurityStats = CallSecurityStats(), audioDevice: CallAudioDeviceStats = CallAudioDeviceStats()
    ) {
        self.callSid = callSid
        self.timestamp = timestamp
        self.roundTripTimeMs = roundTripTimeMs
        self.localAudioTrackStats = localAudioTrackStats
        self.remoteAudioTrackStats = remoteAudioTrackStats
        self.security = security
        self.audioDevice = audioDevice
    }

    /// A report from the media stream's statistics: one local and one remote track.
    /// The remote track's MOS is `nil` until a packet has been received.
    package init(streamStats stats: AudioStreamStats, callSid: String?) {
        var local = CallLocalAudioTrackStats(
            codec: stats.mediaCodec.map(AudioCodec.init), payloadType: stats.payloadType, ssrc: stats.ssrc, packetsSent: stats.packetsSent,
            bytesSent: stats.bytesSent, packetsLost: stats.remotePacketsLost, fractionLost: stats.remoteFractionLost,
            jitterMs: stats.remoteJitterMs, roundTripTimeMs: stats.rttMs, audioLevel: stats.inputLevel)
        var remote = CallRemoteAudioTrackStats(
            codec: stats.mediaCodec.map(AudioCodec.init), ssrc: stats.remoteSSRC, packetsReceived: stats.packetsReceived,
            bytesReceived: stats.bytesReceived, packetsLost: stats.packetsLost, fractionLost: stats.fractionLost,
            jitterMs: stats.jitterMs, jitterBufferDelayMs: stats.jitterBuffer.playoutDelay.milliseconds,
            audioLevel: stats.outputLevel, mos: stats.packetsReceived > 0 ? stats.mos : nil)
        local.targetBitrate = stats.sendBitrate
        remote.setWebRTCCounters(from: stats)
        self.init(
            callSid: callSid, timestamp: Duration(stats.timestamp), roundTripTimeMs: stats.rttMs,
            localAudioTrackStats: [local], remoteAudioTrackStats: [remote],
            security: CallSecurityStats(
                srtpAuthFailures: stats.srtpAuthFailures, srtpReplays: stats.srtpReplayFailures,
                malformedPackets: stats.malformedPackets, rejectedSourcePackets: stats.foreignSourcePackets),
            audioDevice: CallAudioDeviceStats(
                captureXruns: stats.captureXruns, playbackXruns: stats.renderXruns, suspendsRecovered: stats.deviceSuspends,
                interruptions: stats.deviceInterruptions, isInterrupted: stats.isAudioInterrupted))
        security.stunIntegrityFailures = stats.stunIntegrityFailures
        security.offPathDTLSDatagrams = stats.offPathDTLSDatagrams
        transport = CallTransportStats(
            selectedCandidatePair: stats.selectedCandidatePair, dtlsState: stats.dtlsState, srtpSuite: stats.dtlsSRTPSuite,
            ice: stats.iceStatistics, traffic: stats.iceTraffic, relay: stats.relayTransport)
    }

    /// The local track, when media is set up.
    public var localAudioTrack: CallLocalAudioTrackStats? { localAudioTrackStats.first }
    /// The remote track, when media is set up.
    public var remoteAudioTrack: CallRemoteAudioTrackStats? { remoteAudioTrackStats.first }
}
