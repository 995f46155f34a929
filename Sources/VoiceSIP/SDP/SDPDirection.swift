/// The media direction attribute (RFC 8866 §6.7), from the point of view of the description's author.
package enum SDPDirection: String, Hashable, Sendable, CaseIterable {
    /// Sends and receives (the default when no direction attribute is present).
    case sendrecv
    /// Sends only: a party putting the other on hold.
    case sendonly
    /// Receives only.
    case recvonly
    /// Neither sends nor receives.
    case inactive

    /// Creates a direction from its flags.
    package init(sends: Bool, receives: Bool) {
        switch (sends, receives) {
        case (true, true): self = .sendrecv
        case (true, false): self = .sendonly
        case (false, true): self = .recvonly
        case (false, false): self = .inactive
        }
    }

    /// Whether the author sends media.
    package var sends: Bool { self == .sendrecv || self == .sendonly }
    /// Whether the author receives media.
    package var receives: Bool { self == .sendrecv || self == .recvonly }

    /// The direction seen from the other side: sendonly ↔ recvonly; sendrecv and inactive unchanged.
    package var mirrored: SDPDirection { SDPDirection(sends: receives, receives: sends) }

    /// The direction an answerer that wants `local` can answer to an offer of `self` (RFC 3264 §6.1).
    package func answer(wanting local: SDPDirection) -> SDPDirection {
        SDPDirection(sends: receives && local.sends, receives: sends && local.receives)
    }
}
