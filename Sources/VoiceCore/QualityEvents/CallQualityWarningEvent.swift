/// A call-quality event, Sinch's `SinchCallQualityWarningEvent`: a problem began (``EventType/trigger``)
/// or ended (``EventType/recover``), reported by ``CallDelegate/callDidEmitCallQualityEvent(_:event:)``
/// next to Twilio's quality warnings.
///
/// Which event carries what, as in Sinch's table:
///
/// | event | ``MediaStreamType`` | ``SourceStreamType`` | trigger | recover |
/// |---|---|---|---|---|
/// | ``highRemoteInboundRtt(_:mediaStream:)`` | yes | no | RTT > 300 ms | RTT < 300 ms |
/// | ``highInboundJitter(_:mediaStream:)`` | yes | no | inbound jitter > 30 ms in 3 of the last 4 samples | no longer so |
/// | ``highInboundPacketLoss(_:mediaStream:)`` | yes | no | inbound loss > 1 % in 3 of the last 4 samples | no longer so |
/// | ``missingMediaStream(_:)`` | no | no | no media path while the call is established | media flows |
/// | ``constantAudioLevel(_:source:)`` | no (audio) | yes | std. deviation of the level over the last 20 s < 0.5 % of full scale | no longer so |
/// | ``zeroAudioLevel(_:source:)`` | no (audio) | yes | every level of the last 2 s is 0 | no longer so |
/// | ``lowOSOutputVolumeLevel(_:)`` | no (audio) | no | the system's output volume is in its lowest 25 % | no longer so |
///
/// The thresholds are Sinch's defaults. How each is measured here: RTT from
/// RTCP; jitter (RFC 3550) and the loss of each second, one sample a second; missing media is no
/// authenticated RTP while the peer is expected to send (not held); levels are the peak of the
/// latest 20 ms frame, five times a second, a peak of at most 8 of 32767 (−72 dBFS) counting as
/// zero; a direction not measured (outbound muted or held, inbound held) starts over and
/// recovers what it had triggered; the volume is the playback mixer's of the call's device
/// (`AudioDevice.outputVolume`).
public enum CallQualityWarningEvent: Sendable, Hashable {
    /// The round-trip time of our packets, from RTCP, is high.
    case highRemoteInboundRtt(EventType, mediaStream: MediaStreamType)
    /// The jitter of what we receive is high.
    case highInboundJitter(EventType, mediaStream: MediaStreamType)
    /// Much of what the peer sends is lost.
    case highInboundPacketLoss(EventType, mediaStream: MediaStreamType)
    /// No media arrives for 2 s although the call is established.
    case missingMediaStream(EventType)
    /// The audio level of a direction has been constant (a stuck or dead microphone, a tone).
    case constantAudioLevel(EventType, source: SourceStreamType)
    /// The audio level of a direction has been zero (digital silence).
    case zeroAudioLevel(EventType, source: SourceStreamType)
    /// The system's output volume is very low.
    case lowOSOutputVolumeLevel(EventType)

    /// Whether a problem began or ended.
    public enum EventType: Sendable, Hashable {
        /// The problem began.
        case trigger
        /// The problem ended.
        case recover
    }

    /// The kind of media the event is about (always audio here).
    public enum MediaStreamType: Sendable, Hashable {
        case audio
        case video
    }

    /// The direction the event is about.
    public enum SourceStreamType: Sendable, Hashable {
        /// What the call receives and plays.
        case inbound
        /// What the call captures and sends.
        case outbound
    }

    /// Trigger or recover.
    public var eventType: EventType {
        switch self {
        case .highRemoteInboundRtt(let t, _), .highInboundJitter(let t, _), .highInboundPacketLoss(let t, _): return t
        case .missingMediaStream(let t), .lowOSOutputVolumeLevel(let t): return t
        case .constantAudioLevel(let t, _), .zeroAudioLevel(let t, _): return t
        }
    }
}
