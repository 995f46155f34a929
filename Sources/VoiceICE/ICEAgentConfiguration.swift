import VoiceSupport

/// Timing of an ICE agent (RFC 8445 §14, RFC 7675).
package struct ICEAgentConfiguration: Hashable, Sendable {
    /// Ta: at most one new check per this interval (RFC 8445 §14.2: 50 ms by default).
    package var pacing: MediaTime = .milliseconds(50)
    /// A check's first retransmission timeout; it doubles with each retransmission.
    package var initialRetransmissionTimeout: MediaTime = .milliseconds(250)
    /// How many times a check is sent before its pair fails.
    package var maximumTransmissions = 6
    /// How long an answer to a check that is not sent again (a consent check, or one a
    /// triggered check replaced) still counts: past its retransmission timeout, so that a path
    /// whose round trip is longer than that (a satellite hop) is not refused.
    package var answerWindow: MediaTime = .seconds(5)
    /// The controlling agent waits this long after the first valid pair for better ones
    /// before it nominates the best (checks of higher-priority pairs may still be under way);
    /// at once when the valid pair is the best that can still succeed.
    package var nominationDelay: MediaTime = .milliseconds(200)
    /// As the controlled agent, a nomination of another pair this long after our selection
    /// replaces it even at a lower priority (the peer moved and renominated); sooner, it is
    /// aggressive nomination's, and the higher priority stays.
    package var renominationGuard: MediaTime = .seconds(1)
    /// Consent checks on the selected pair are sent every interval, jittered by ±20 %
    /// (RFC 7675 §5.1: 5 s, randomized between 4 and 6 s).
    package var consentInterval: MediaTime = .seconds(5)
    /// Without a consent response for this long, consent is lost (RFC 7675 §5.1: 30 s).
    package var consentTimeout: MediaTime = .seconds(30)

    package init() {}
}
