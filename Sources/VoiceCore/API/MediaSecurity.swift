/// How a call's media is encrypted and keyed.
///
/// | | offers | answers | setup cost |
/// |---|---|---|---|
/// | ``automatic`` | ICE + DTLS-SRTP (`UDP/TLS/RTP/SAVPF`); a 488 or 415 gets one retry with SDES | what the offer asks: DTLS-SRTP or SDES | DTLS: ICE checks and a handshake after the answer (a few round trips); the SDES retry costs one more INVITE round trip |
/// | ``dtls`` | ICE + DTLS-SRTP only | DTLS-SRTP offers only (others get 488) | as above, never the retry |
/// | ``sdes`` | SDES-SRTP (`RTP/SAVP`, keys in the SDP) | SDES offers only | none beyond the answer, but the keys travel in the signaling, so TLS signaling is required |
public enum MediaSecurity: String, Sendable, Hashable, CaseIterable {
    /// WebRTC's keying (ICE + DTLS-SRTP) when the peer has it, SDES when it has only that: what
    /// browsers, WebRTC gateways, baresip and desk phones each accept. The default.
    case automatic
    /// DTLS-SRTP (RFC 5764) with ICE only: keys are agreed on the media path and never appear
    /// in the signaling, and the peer's certificate is checked against its SDP fingerprint.
    case dtls
    /// SDES-SRTP (RFC 4568) only, as before WebRTC.
    case sdes
}
