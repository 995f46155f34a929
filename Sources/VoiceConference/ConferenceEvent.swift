import Foundation
import VoiceCore

/// A caller in a conference room hosted by a ``ConferenceServer``.
public struct ConferenceParticipant: Sendable, Hashable, CustomStringConvertible {
    /// The room's id.
    public let room: String
    /// The participant's call's UUID: unique while the server runs.
    public let id: UUID
    /// The caller (user part or number), if known.
    public let from: String?
    /// The call's SID.
    public let callSid: String

    public var description: String { "\(from ?? "?")@\(room)" }
}

/// What happens in the rooms of a ``ConferenceServer``, in order, on its delegate's queue and
/// in ``ConferenceServer/events``.
public enum ConferenceEvent: Sendable, Equatable {
    /// The first call to a room that did not exist created it (or a known room was opened).
    case roomCreated(room: String)
    /// A participant's call connected: it hears the others and is heard.
    case participantJoined(ConferenceParticipant)
    /// A participant left: hung up, was removed, or its call failed (`error`).
    case participantLeft(ConferenceParticipant, error: VoiceError?)
    /// A participant started (true) or stopped (false) talking, from its audio's levels.
    case talking(ConferenceParticipant, Bool)
    /// A participant was muted (true) or unmuted by the server.
    case muted(ConferenceParticipant, Bool)
    /// The room ended: its last participant left, or ``ConferenceServer/endRoom(_:)``.
    case roomEnded(room: String)
}

/// Receives a ``ConferenceServer``'s events.
public protocol ConferenceServerDelegate: AnyObject, Sendable {
    /// One event; called on the queue given to the server.
    func conferenceServer(_ server: ConferenceServer, didReport event: ConferenceEvent)
}
