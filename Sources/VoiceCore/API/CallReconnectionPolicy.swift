import VoiceSupport

/// When a connected call counts as broken, and how long it may take to recover.
///
/// A call whose peer has sent no media for ``mediaSilenceThreshold`` goes `reconnecting`
/// (warning 53405) and gets ``mediaReconnectTimeout`` for media to flow again; a call whose
/// signaling connection drops gets ``signalingReconnectTimeout`` to re-establish it (53001).
/// Past either, the call ends with the matching error. Values below 1 ms count as 1 ms.
///
/// Silence means no RTP and no sign of a live path: RTCP reports in which the peer says it is
/// not sending (a receiver report, or a sender report whose packet count stands still) keep
/// a quiet peer's call connected while they keep coming. Before anything has arrived, silence
/// is counted from 6 s after the media started, the time a first RTCP report takes.
public struct CallReconnectionPolicy: Sendable, Hashable {
    package var machine: CallStateMachineConfiguration

    /// A policy; each value left nil keeps its default (3 s silence, 30 s for each recovery).
    public init(
        mediaSilenceThreshold: Duration? = nil, mediaReconnectTimeout: Duration? = nil,
        signalingReconnectTimeout: Duration? = nil
    ) {
        let defaults = CallStateMachineConfiguration()
        machine = CallStateMachineConfiguration(
            mediaSilenceThreshold: mediaSilenceThreshold.map(MediaTime.init) ?? defaults.mediaSilenceThreshold,
            mediaReconnectTimeout: mediaReconnectTimeout.map(MediaTime.init) ?? defaults.mediaReconnectTimeout,
            signalingReconnectTimeout: signalingReconnectTimeout.map(MediaTime.init) ?? defaults.signalingReconnectTimeout)
    }

    package init(_ machine: CallStateMachineConfiguration) { self.machine = machine }

    /// How long without media from the peer before the call is reconnecting. Default 3 s.
    public var mediaSilenceThreshold: Duration { Duration(machine.mediaSilenceThreshold) }
    /// How long media may take to come back before the call ends (53405). Default 30 s.
    public var mediaReconnectTimeout: Duration { Duration(machine.mediaReconnectTimeout) }
    /// How long a lost signaling connection may take to come back before the call ends. Default 30 s.
    public var signalingReconnectTimeout: Duration { Duration(machine.signalingReconnectTimeout) }
}
