import VoiceCore
@_exported import enum VoiceSIPAgent.ConferenceAddressing

/// How a ``ConferenceServer`` admits callers.
public struct ConferenceServerOptions: Sendable, Equatable {
    /// The most participants in one room (at least 1); the next caller gets 486 Busy Here.
    public var maximumParticipants: Int
    /// Rooms that exist from the start and stay open while empty.
    public var knownRooms: Set<String>
    /// When true, a call to a room not in ``knownRooms`` gets 404 Not Found instead of
    /// creating it.
    public var knownRoomsOnly: Bool
    /// The forms an INVITE may name its room in, the ones a client's `VoiceServerSettings.conferenceAddressing`
    /// sends: `sip:room@host;conference` (``ConferenceAddressing/uriParameter``), a user prefix,
    /// a host of the server's own, or a focus user with the room in a header. A call that
    /// matches none gets 404 Not Found.
    public var addressing: [ConferenceAddressing]
    /// Whether listeners share one encode of the room's mix per encoding and frame phase (the
    /// default); false makes every participant's call encode its own mix, the per-leg baseline
    /// the benchmark compares with.
    package var sharesEncoding = true
    /// Whether a participant's frames announced (RFC 6464) below the mixer's silence level go
    /// undecoded (the default); false decodes every frame, the baseline the benchmark compares with.
    package var skipsAnnouncedSilence = true

    /// Creates options; the defaults: 16 per room, rooms made on demand, `;conference` URIs.
    public init(
        maximumParticipants: Int = 16, knownRooms: Set<String> = [], knownRoomsOnly: Bool = false,
        addressing: [ConferenceAddressing] = [.uriParameter]
    ) {
        self.maximumParticipants = max(1, maximumParticipants)
        self.knownRooms = knownRooms
        self.knownRoomsOnly = knownRoomsOnly
        self.addressing = addressing
    }
}
