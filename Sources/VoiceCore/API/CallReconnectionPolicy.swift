import VoiceSIP
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
///
/// A signaling path can also die without a connection saying so (UDP, the default, or a peer
/// that vanished): the client sends the outbound proxy or registrar a keep-alive that expects
/// an answer every ``keepAliveInterval`` (a CRLF ping over TCP and TLS, an OPTIONS over UDP).
/// One unanswered for ``keepAliveTimeout`` makes the calls through that hop reconnecting
/// (53001), so a dead path is noticed within the sum (25 s by default); the first answer after
/// that re-INVITEs them.
public struct CallReconnectionPolicy: Sendable, Hashable {
    package var machine: CallStateMachineConfiguration
    package var flowLiveness: SIPFlowLiveness.Configuration

    /// A policy; each value left nil keeps its default (3 s silence, 30 s for each recovery,
    /// a keep-alive every 15 s answered within 10 s).
    public init(
        mediaSilenceThreshold: Duration? = nil, mediaReconnectTimeout: Duration? = nil,
        signalingReconnectTimeout: Duration? = nil, keepAliveInterval: Duration? = nil, keepAliveTimeout: Duration? = nil
    ) {
        let defaults = CallStateMachineConfiguration()
        machine = CallStateMachineConfiguration(
            mediaSilenceThreshold: mediaSilenceThreshold.map(MediaTime.init) ?? defaults.mediaSilenceThreshold,
            mediaReconnectTimeout: mediaReconnectTimeout.map(MediaTime.init) ?? defaults.mediaReconnectTimeout,
            signalingReconnectTimeout: signalingReconnectTimeout.map(MediaTime.init) ?? defaults.signalingReconnectTimeout)
        var liveness = SIPFlowLiveness.Configuration()
        if let keepAliveInterval { liveness.interval = max(.milliseconds(1), MediaTime(keepAliveInterval)) }
        if let keepAliveTimeout { liveness.timeout = max(.milliseconds(1), MediaTime(keepAliveTimeout)) }
        liveness.retryInterval = min(liveness.retryInterval, liveness.interval)
        flowLiveness = liveness
    }

    package init(_ machine: CallStateMachineConfiguration) {
        self.machine = machine
        flowLiveness = SIPFlowLiveness.Configuration()
    }

    /// How long without media from the peer before the call is reconnecting. Default 3 s.
    public var mediaSilenceThreshold: Duration { Duration(machine.mediaSilenceThreshold) }
    /// How long media may take to come back before the call ends (53405). Default 30 s.
    public var mediaReconnectTimeout: Duration { Duration(machine.mediaReconnectTimeout) }
    /// How long a lost signaling connection may take to come back before the call ends. Default 30 s.
    public var signalingReconnectTimeout: Duration { Duration(machine.signalingReconnectTimeout) }
    /// Time between keep-alives to the outbound proxy or registrar. Default 15 s.
    public var keepAliveInterval: Duration { Duration(flowLiveness.interval) }
    /// How long a keep-alive may go unanswered before the path counts as dead. Default 10 s.
    public var keepAliveTimeout: Duration { Duration(flowLiveness.timeout) }
}
