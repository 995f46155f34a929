import Foundation

/// Maps the lifecycle of a call's RTP media stream onto the `pc-connection-state`,
/// `ice-connection-state`, `ice-gathering-state` and `ice-candidate` events of the seed's tables.
/// A pure value: feed it lifecycle inputs with the time, publish what it returns.
///
/// | input | events |
/// |---|---|
/// | `created` | `pc-connection-state:new`, `ice-connection-state:new`, `ice-gathering-state:new` |
/// | `started` | `ice-gathering-state:complete`, `ice-candidate:ice-candidate`, `pc-connection-state:connecting`, `ice-connection-state:checking` |
/// | `mediaReceived` | (first time) `ice-candidate:selected-ice-candidate-pair`, then `pc-connection-state:connected`, `ice-connection-state:connected` |
/// | `mediaSilent` | `pc-connection-state:disconnected`, `ice-connection-state:disconnected` |
/// | `failed` | `pc-connection-state:failed`, `ice-connection-state:failed` |
/// | `closed` | `pc-connection-state:closed`, `ice-connection-state:closed` |
///
/// Inputs that do not change the state (a second `mediaReceived`, `mediaSilent` before media
/// arrived, anything after `closed`) return no events. `started` before `created` emits the
/// `created` events first. `ice-connection-state:completed` and `ice-gathering-state:gathering`
/// never fire (no ICE checks, no asynchronous gathering).
package struct InsightsMediaConnectionTracker: Hashable, Sendable {
    /// A lifecycle step of the media stream.
    package enum Input: Hashable, Sendable {
        /// The call's media was set up (before any socket is used).
        case created
        /// The stream started sending from `localAddress` to the negotiated `remoteAddress` (`host:port`).
        case started(localAddress: String, remoteAddress: String)
        /// Media arrived from the peer (first packet, or first after silence).
        case mediaReceived
        /// The peer's media has been silent beyond the reconnecting threshold.
        case mediaSilent
        /// Media could not be established or did not resume in time.
        case failed
        /// The stream stopped.
        case closed
    }

    /// The current peer-connection state; `nil` before `created`.
    package private(set) var state: InsightsPeerConnectionState?
    private var localAddress = ""
    private var remoteAddress = ""
    private var pairReported = false

    /// A tracker before `created`.
    package init() {}

    /// Applies `input` and returns the events to publish, in order.
    package mutating func handle(_ input: Input, callSid: String?, at timestamp: Date) -> [InsightsEvent] {
        var events: [InsightsEvent] = []
        func move(_ pc: InsightsPeerConnectionState, _ ice: InsightsICEConnectionState) {
            state = pc
            events.append(.peerConnectionState(pc, callSid: callSid, at: timestamp))
            events.append(.iceConnectionState(ice, callSid: callSid, at: timestamp))
        }
        func create() {
            move(.new, .new)
            events.append(.iceGatheringState(.new, callSid: callSid, at: timestamp))
        }
        switch input {
        case .created:
            if state == nil { create() }
        case .started(let local, let remote):
            if state == nil { create() }
            guard state == .new else { break }
            localAddress = local
            remoteAddress = remote
            events.append(.iceGatheringState(.complete, callSid: callSid, at: timestamp))
            events.append(.iceCandidate(localAddress: local, callSid: callSid, at: timestamp))
            move(.connecting, .checking)
        case .mediaReceived:
            guard state == .connecting || state == .disconnected else { break }
            if !pairReported {
                pairReported = true
                events.append(
                    .selectedCandidatePair(
                        localAddress: localAddress, remoteAddress: remoteAddress, callSid: callSid, at: timestamp))
            }
            move(.connected, .connected)
        case .mediaSilent:
            guard state == .connected else { break }
            move(.disconnected, .disconnected)
        case .failed:
            guard let current = state, current != .failed, current != .closed else { break }
            move(.failed, .failed)
        case .closed:
            guard let current = state, current != .closed else { break }
            move(.closed, .closed)
        }
        return events
    }
}
