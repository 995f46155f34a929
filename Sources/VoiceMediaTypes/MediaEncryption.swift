/// How a stream protects its media.
package enum MediaEncryption: Sendable {
    /// SRTP/SRTCP with SDES keys: `local` protects what we send, `remote` is the peer's key.
    case srtp(local: SRTPKeyMaterial, remote: SRTPKeyMaterial)
    /// Plain RTP. Only when the application opts in explicitly.
    case unencrypted
}
