import Foundation

extension InsightsEvent {
    /// A `connection` event at level `info` (`error` for ``InsightsConnectionEvent/error``).
    /// For errors prefer ``connectionError(code:message:callSid:at:sipStatus:)``, which fills the payload.
    package static func connection(
        _ event: InsightsConnectionEvent, callSid: String?, at timestamp: Date,
        payload: [String: InsightsValue] = [:]
    ) -> InsightsEvent {
        InsightsEvent(
            group: .connection, name: event.rawValue, timestamp: timestamp, callSid: callSid,
            level: event == .error ? .error : .info, payload: payload)
    }

    /// The `connection`/`error` event: payload `code` (the `VoiceError.Code` raw value), `message`
    /// and, when the error came from a SIP response, `sipStatus`. A rejected invite reports
    /// code 31600 with message `Busy Everywhere : SIP/2.0 600 Call Rejected`.
    package static func connectionError(
        code: Int, message: String, callSid: String?, at timestamp: Date, sipStatus: Int? = nil
    ) -> InsightsEvent {
        var payload: [String: InsightsValue] = ["code": .int(code), "message": .string(message)]
        if let sipStatus { payload["sipStatus"] = .int(sipStatus) }
        return connection(.error, callSid: callSid, at: timestamp, payload: payload)
    }

    /// A `connection`/`reconnecting` event whose payload names the cause (53001 signaling,
    /// 53405 media).
    package static func reconnecting(
        code: Int, message: String, callSid: String?, at timestamp: Date
    ) -> InsightsEvent {
        connection(
            .reconnecting, callSid: callSid, at: timestamp,
            payload: ["code": .int(code), "message": .string(message)])
    }

    /// The `settings`/`codec` event, sent once the negotiated codec is known and the remote SDP
    /// applied: payload `selected_codec` (e.g. `opus/48000/2`) and, when given, `codec_params`
    /// (the fmtp line, e.g. `maxaveragebitrate=80000;useinbandfec=1`).
    package static func codec(
        _ selectedCodec: String, parameters: String? = nil, callSid: String?, at timestamp: Date
    ) -> InsightsEvent {
        var payload: [String: InsightsValue] = ["selected_codec": .string(selectedCodec)]
        if let parameters { payload["codec_params"] = .string(parameters) }
        return InsightsEvent(
            group: .settings, name: InsightsSettingsEvent.codec.rawValue, timestamp: timestamp,
            callSid: callSid, level: .info, payload: payload)
    }

    /// An `audio-interruption` event: `began` at level `warning` with payload `capture`,
    /// `render` (which directions) and `message` (the device error); `ended` at level `info`.
    package static func audioInterruption(
        _ event: InsightsAudioInterruptionEvent, interruption: CallAudioInterruption?, callSid: String?, at timestamp: Date
    ) -> InsightsEvent {
        var payload: [String: InsightsValue] = [:]
        if let interruption {
            payload["capture"] = .bool(interruption.capture)
            payload["render"] = .bool(interruption.render)
            payload["message"] = .string(interruption.error.message)
            if interruption.error.code != 0 { payload["code"] = .int(Int(interruption.error.code)) }
        }
        return InsightsEvent(
            group: .audioInterruption, name: event.rawValue, timestamp: timestamp, callSid: callSid,
            level: event == .began ? .warning : .info, payload: payload)
    }

    /// A `signaling-state` event at level `debug`.
    package static func signalingState(
        _ state: InsightsSignalingState, callSid: String?, at timestamp: Date
    ) -> InsightsEvent {
        InsightsEvent(
            group: .signalingState, name: state.rawValue, timestamp: timestamp, callSid: callSid, level: .debug)
    }

    /// A `pc-connection-state` event at level `debug` (`error` for `failed`).
    package static func peerConnectionState(
        _ state: InsightsPeerConnectionState, callSid: String?, at timestamp: Date
    ) -> InsightsEvent {
        InsightsEvent(
            group: .pcConnectionState, name: state.rawValue, timestamp: timestamp, callSid: callSid,
            level: state == .failed ? .error : .debug)
    }

    /// An `ice-connection-state` event at level `debug` (`error` for `failed`).
    package static func iceConnectionState(
        _ state: InsightsICEConnectionState, callSid: String?, at timestamp: Date
    ) -> InsightsEvent {
        InsightsEvent(
            group: .iceConnectionState, name: state.rawValue, timestamp: timestamp, callSid: callSid,
            level: state == .failed ? .error : .debug)
    }

    /// An `ice-gathering-state` event at level `debug`.
    package static func iceGatheringState(
        _ state: InsightsICEGatheringState, callSid: String?, at timestamp: Date
    ) -> InsightsEvent {
        InsightsEvent(
            group: .iceGatheringState, name: state.rawValue, timestamp: timestamp, callSid: callSid, level: .debug)
    }

    /// The `ice-candidate`/`ice-candidate` event for our bound RTP address (a host candidate).
    package static func iceCandidate(
        localAddress: String, callSid: String?, at timestamp: Date
    ) -> InsightsEvent {
        InsightsEvent(
            group: .iceCandidate, name: InsightsICECandidateEvent.iceCandidate.rawValue, timestamp: timestamp,
            callSid: callSid, level: .debug,
            payload: ["candidate_type": "host", "transport": "udp", "address": .string(localAddress)])
    }

    /// The `ice-candidate`/`selected-ice-candidate-pair` event: the addresses media flows between.
    package static func selectedCandidatePair(
        localAddress: String, remoteAddress: String, callSid: String?, at timestamp: Date
    ) -> InsightsEvent {
        InsightsEvent(
            group: .iceCandidate, name: InsightsICECandidateEvent.selectedICECandidatePair.rawValue,
            timestamp: timestamp, callSid: callSid, level: .debug,
            payload: [
                "local_candidate": ["candidate_type": "host", "transport": "udp", "address": .string(localAddress)],
                "remote_candidate": ["candidate_type": "host", "transport": "udp", "address": .string(remoteAddress)],
            ])
    }

    /// A `network-quality-warning-raised`/`-cleared` or `audio-level-warning-raised`/`-cleared`
    /// event named after `warning`: level `warning` when raised, `info` when cleared.
    package static func qualityWarning(
        _ warning: CallQualityWarning, raised: Bool, callSid: String?, at timestamp: Date,
        payload: [String: InsightsValue] = [:]
    ) -> InsightsEvent {
        let group: InsightsEventGroup
        switch (warning.isAudioLevelWarning, raised) {
        case (false, true): group = .networkQualityWarningRaised
        case (false, false): group = .networkQualityWarningCleared
        case (true, true): group = .audioLevelWarningRaised
        case (true, false): group = .audioLevelWarningCleared
        }
        return InsightsEvent(
            group: group, name: warning.insightsName, timestamp: timestamp, callSid: callSid,
            level: raised ? .warning : .info, payload: payload)
    }

    /// The `quality-metrics-samples`/`metrics-sample` event: a batch of one-second stats
    /// samples (``InsightsMetricsBatch``).
    package static func metricsSamples(_ samples: [InsightsValue], callSid: String?, at timestamp: Date) -> InsightsEvent {
        InsightsEvent(
            group: .qualityMetricsSamples, name: "metrics-sample", timestamp: timestamp, callSid: callSid, level: .debug,
            payload: ["samples": .array(samples)])
    }
}
