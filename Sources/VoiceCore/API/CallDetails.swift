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
    /// The negotiated codec, once connected (`opus`, `G722`, `PCMU`, `PCMA`).
    public var codec: String?

    /// Time from creation to connection.
    public var setupTime: TimeInterval? { connectedAt.map { $0.timeIntervalSince(createdAt) } }
}

/// Why a call ended, as precisely as Sinch's `SINCallEndCause`.
public enum CallEndCause: Sendable, Equatable {
    /// We hung up a connected call (`disconnect()`).
    case local
    /// The other side hung up a connected call (BYE).
    case remote
    /// The caller gave up before the call connected: our `disconnect()` of an outgoing call
    /// (a CANCEL), or, for an accepted invite, the caller's CANCEL (31008).
    case canceled
    /// The callee rejected the call: busy (486), busy everywhere or rejected (600), declined (603).
    case denied
    /// Nobody answered: our ring timeout (``VoiceClientConfiguration/ringTimeout``) expired, or
    /// the callee's side gave up ringing (480, or 408 after ringing).
    case noAnswer
    /// Something did not answer in time: the INVITE got no response (408 before any ringing),
    /// no ACK came for our answer, or a reconnection (53405, 53001) ran out of time.
    case timeout
    /// We transferred the call and the transfer succeeded (``Call/transfer(to:)``).
    case transferred
    /// The far end's attended transfer replaced the call with another (``CallDelegate/call(_:wasReplacedBy:)``).
    case replaced
    /// Any other failure (Sinch's `Failure`).
    case error(VoiceError)

    /// The cause of a call ended by `error`; `rang` tells whether the callee was alerted first,
    /// `timedOut` whether a reconnection ran out of time.
    init(failure error: VoiceError, rang: Bool, timedOut: Bool = false) {
        if timedOut {
            self = .timeout
            return
        }
        switch error.code {
        case .callCancelled: self = .canceled
        case .busyHere, .busyEverywhere, .decline: self = .denied
        case .temporarilyUnavailable: self = .noAnswer
        case .requestTimeout where error.sipStatus == 408 && rang: self = .noAnswer
        case .requestTimeout: self = .timeout
        default: self = .error(error)
        }
    }
}
