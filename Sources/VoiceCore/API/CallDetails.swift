import Foundation

/// When a call went through its states, and why it ended.
public struct CallDetails: Sendable, Equatable {
    /// When the call object was created.
    public var createdAt: Date
    /// When it started ringing (caller side).
    public var ringingAt: Date?
    /// When it connected.
    public var connectedAt: Date?
    /// When audio was seen flowing both ways (Sinch's "established"): the peer's RTP arrived,
    /// and the peer's RTCP reported receiving ours. Nil until then.
    public var mediaEstablishedAt: Date?
    /// When it disconnected.
    public var disconnectedAt: Date?
    /// Why it ended, once disconnected.
    public var endCause: CallEndCause?
    /// The negotiated codec, once connected (`opus`, `PCMU`, `PCMA`).
    public var codec: String?

    /// Time from creation to connection.
    public var setupTime: TimeInterval? { connectedAt.map { $0.timeIntervalSince(createdAt) } }
}

/// Why a call ended.
public enum CallEndCause: Sendable, Equatable {
    /// `disconnect()` was called.
    case local
    /// The other side hung up (BYE, CANCEL, or rejected).
    case remote
    /// An error ended it.
    case error(VoiceError)
}
