import VoiceSupport

/// What an ``RTPStream`` asks its driver to do, in the order it must happen. The buffers an
/// action carries belong to the stream and are valid only during the call that performs it.
package enum RTPStreamAction {
    /// Send these bytes (a protected RTP or RTCP packet) to that address, from the RTP port or,
    /// for RTCP without rtcp-mux, the RTCP port.
    case send(UnsafeRawBufferPointer, to: SocketAddress, component: RTPStreamComponent)
    /// Play these 48 kHz mono samples next.
    case play(UnsafeBufferPointer<Int16>)
    /// The stream's figures now (a few times a second).
    case publish(AudioStreamStats)
    /// Something the peer did that the application hears about.
    case report(RTPStreamEvent)
}

/// Which of a stream's ports a datagram leaves from (ICE's "component", RFC 8445): RTP's, or
/// RTCP's when it is not multiplexed on the RTP port (RFC 5761).
package enum RTPStreamComponent: Hashable, Sendable {
    case rtp
    case rtcp
}

/// What the peer did, as the stream saw it in its media.
package enum RTPStreamEvent: Sendable, Hashable {
    /// The played source sent an RTCP BYE: it has left the session.
    case remoteBye
    /// An RFC 4733 event (a DTMF digit) ended: its code and duration in RTP units.
    case telephoneEvent(code: UInt8, duration: Int)
}

/// Carries out a stream's actions: sockets and devices in the media engine, a recorder in
/// tests. The stream calls it synchronously, one action at a time.
package protocol RTPStreamOutput {
    /// Performs `action`. For ``RTPStreamAction/send(_:to:)`` returns whether the transport
    /// took the packet (media is lossy: a refusal is counted, not retried); true otherwise.
    mutating func perform(_ action: RTPStreamAction) -> Bool
}
