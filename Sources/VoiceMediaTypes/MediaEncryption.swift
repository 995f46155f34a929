/// How a stream protects its media.
package enum MediaEncryption: Sendable {
    /// SRTP/SRTCP with SDES keys: `local` protects what we send, `remote` is the peer's key.
    case srtp(local: SRTPKeyMaterial, remote: SRTPKeyMaterial)
    /// Plain RTP. Only when the application opts in explicitly.
    case unencrypted
    /// SRTP/SRTCP with keys from a DTLS handshake on the stream's own port (RFC 5764): nothing is
    /// sent and nothing received is played until the handshake has finished and the peer's
    /// certificate matched its SDP fingerprint.
    case dtlsSRTP
}
