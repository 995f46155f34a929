import VoiceSupport

/// How a DTLS association runs its handshake.
package struct DTLSConfiguration: Sendable, Hashable {
    /// The longest the handshake may take from ``DTLSAssociation/start(now:)``; then it fails
    /// with ``DTLSError/handshakeTimedOut``. 10 s: past the retransmissions a lossy path needs.
    package var handshakeTimeout: MediaTime = .milliseconds(10_000)
    /// The first retransmission timeout; it doubles on each retransmission up to 3 s. 100 ms
    /// (OpenSSL's own default is 1 s, too slow for call setup).
    package var initialRetransmissionTimeout: MediaTime = .milliseconds(100)
    /// The largest datagram the handshake sends (certificate messages are fragmented to fit).
    /// 1,200 bytes keeps clear of IPv6 minimum-MTU paths with TURN's overhead.
    package var mtu: Int = 1200

    package init() {}
}
