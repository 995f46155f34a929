import VoiceAddress
import VoiceSupport

/// What an ICE agent asks its driver to do.
package enum ICEAgentAction: Hashable, Sendable {
    /// Send `bytes` from the local base `from` to `to`.
    case send([UInt8], from: TransportAddress, to: TransportAddress)
    /// Media goes over this pair from now on (the first time, and when it changes).
    case selected(ICECandidatePair)
    /// Every pair failed: no connectivity (the call fails).
    case failed
    /// No consent response for the consent timeout: stop sending media (RFC 7675 §5.1).
    case consentLost
    /// A consent response came back after consent was lost: media may flow again.
    case consentRestored
    /// The peer's check or answer was refused (bad integrity, bad fingerprint, a wrong
    /// username): for the security counters. Never answered.
    case refused(ICECheckError, from: TransportAddress)
}

/// The agent's overall state.
package enum ICEAgentState: Hashable, Sendable {
    /// Checks are running; nothing selected yet.
    case checking
    /// A pair is selected; consent is fresh.
    case connected
    /// A pair is selected but consent has expired.
    case disconnected
    /// Every pair failed.
    case failed
}
