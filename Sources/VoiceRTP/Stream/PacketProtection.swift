/// Protects what a stream sends and checks what it receives: SRTP (RFC 3711) in production
/// (`SRTPSession` in VoiceMedia, on libsrtp), a fake in tests. Every call works in place on the
/// caller's buffer, whose capacity leaves room for ``maximumTrailerLength`` more bytes.
///
/// Implementers guarantee: no call allocates or blocks. Threading: used by one stream's thread
/// at a time (not `Sendable`).
package protocol PacketProtection: AnyObject {
    /// Bytes protection may add after a packet (authentication tag, MKI).
    var maximumTrailerLength: Int { get }
    /// Protects the RTP packet in `buffer[0..<length]`; returns the protected length.
    func protect(rtp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(PacketProtectionError) -> Int
    /// Checks and decrypts the RTP packet in `buffer[0..<length]`; returns the plain length.
    func unprotect(rtp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(PacketProtectionError) -> Int
    /// Protects the RTCP compound packet in `buffer[0..<length]`; returns the protected length.
    func protect(rtcp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(PacketProtectionError) -> Int
    /// Checks and decrypts the RTCP compound packet in `buffer[0..<length]`; returns the plain length.
    func unprotect(rtcp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(PacketProtectionError) -> Int
}

/// Why a packet was not protected or not accepted.
package enum PacketProtectionError: Error, Hashable, Sendable {
    /// The authentication tag did not verify: a forged, corrupted or wrongly keyed packet.
    case authentication
    /// A packet already received, or too old for the replay window.
    case replay
    /// Anything else: too short, a bad header, a library failure.
    case invalid
}
