import Foundation

// The peer-connection, ICE and signaling-state Insights events, mapped onto SIP offer/answer and
// the RTP stream (there is no ICE: see InsightsMediaConnectionTracker for the mapping).
extension CallCore {
    /// Feeds the media lifecycle to the tracker and publishes what it reports.
    func trackMedia(_ input: InsightsMediaConnectionTracker.Input) {
        for event in mediaTracker.handle(input, callSid: sid.isEmpty ? nil : sid, at: Date()) { publish(event) }
    }

    /// Publishes a signaling-state change (offer sent or received, answer applied, closed) once per change.
    func signalingState(_ state: InsightsSignalingState) {
        guard lastSignalingState != state else { return }
        lastSignalingState = state
        publish(.signalingState(state, callSid: sid.isEmpty ? nil : sid, at: Date()))
    }
}
