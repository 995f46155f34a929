import Foundation

/// Builds the Insights events a call emits, stamped now.
enum CallInsights {
    static func connection(_ event: InsightsConnectionEvent, callSid: String) -> InsightsEvent {
        .connection(event, callSid: callSid.isEmpty ? nil : callSid, at: Date())
    }

    static func codec(_ codec: String, callSid: String) -> InsightsEvent {
        .codec(codec, callSid: callSid.isEmpty ? nil : callSid, at: Date())
    }

    static func error(_ error: VoiceError, callSid: String) -> InsightsEvent {
        .connectionError(
            code: error.code.rawValue, message: error.failureReason ?? error.localizedDescription,
            callSid: callSid.isEmpty ? nil : callSid, at: Date(), sipStatus: error.sipStatus)
    }

    /// The connection event the state machine asked for; errors go through `resolve` so the
    /// full error (reason, SIP status) is reported.
    static func event(
        for event: CallStateInsightsEvent, callSid: String, resolve: (CallStateError) -> VoiceError
    ) -> InsightsEvent {
        let sid = callSid.isEmpty ? nil : callSid
        switch event {
        case .error(let error):
            return Self.error(resolve(error), callSid: callSid)
        case .reconnecting(let error):
            return .reconnecting(code: error.code, message: error.message, callSid: sid, at: Date())
        case .reconnected(let cause):
            return .connection(.reconnected, callSid: sid, at: Date(), payload: ["cause": .string(cause.description)])
        case .ringing: return connection(.ringing, callSid: callSid)
        case .acceptedByRemote: return connection(.acceptedByRemote, callSid: callSid)
        case .connected: return connection(.connected, callSid: callSid)
        case .disconnectCalled: return connection(.disconnectCalled, callSid: callSid)
        case .disconnectedByLocal: return connection(.disconnectedByLocal, callSid: callSid)
        case .disconnectedByRemote: return connection(.disconnectedByRemote, callSid: callSid)
        }
    }
}
