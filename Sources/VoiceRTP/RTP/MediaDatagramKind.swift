/// What a datagram arriving on a media port is, from its first byte (RFC 7983 §7, updating
/// RFC 5764 §5.1.2): one port can carry STUN (ICE checks, consent), DTLS (key exchange) and
/// RTP/RTCP side by side, and each goes to its own handler.
package enum MediaDatagramKind: Hashable, Sendable {
    /// 0–3: STUN (RFC 8489).
    case stun
    /// 16–19: ZRTP (RFC 6189).
    case zrtp
    /// 20–63: DTLS (RFC 9147 and earlier).
    case dtls
    /// 64–79: a TURN channel's data (RFC 8656).
    case turnChannel
    /// 128–191: RTP or RTCP (RFC 5761 tells them apart by the payload type).
    case rtpOrRTCP
    /// Anything else (including an empty datagram): nothing on a media port sends it.
    case unknown

    /// Classifies a datagram by its first byte.
    package init(_ datagram: UnsafeRawBufferPointer) {
        // A subscript, not `first`: the generic Collection path costs a metadata lookup (and
        // an allocation) per call in an unoptimized build.
        guard datagram.count > 0 else {
            self = .unknown
            return
        }
        switch datagram[0] {
        case 0...3: self = .stun
        case 16...19: self = .zrtp
        case 20...63: self = .dtls
        case 64...79: self = .turnChannel
        case 128...191: self = .rtpOrRTCP
        default: self = .unknown
        }
    }
}
