/// How a call's media is encrypted and keyed: one choice, so no two settings can disagree.
///
/// | | offers | answers | setup cost |
/// |---|---|---|---|
/// | ``automatic`` | ICE + DTLS-SRTP (`UDP/TLS/RTP/SAVPF`); a 488 or 415 gets one retry with SDES | what the offer asks: DTLS-SRTP or SDES | DTLS: ICE checks and a handshake after the answer (a few round trips); the SDES retry costs one more INVITE round trip |
/// | ``dtls`` | ICE + DTLS-SRTP only | DTLS-SRTP offers only (others get 488) | as above, never the retry |
/// | ``sdes`` | SDES-SRTP (`RTP/SAVP`, keys in the SDP) | SDES offers only | none beyond the answer, but the keys travel in the signaling, so TLS signaling is required |
/// | ``automaticOverUnencryptedSignaling`` | as ``automatic``; the SDES retry also over UDP or TCP signaling | as ``automatic`` | as ``automatic`` |
/// | ``sdesOverUnencryptedSignaling`` | as ``sdes``, also over UDP or TCP signaling | as ``sdes`` | as ``sdes`` |
/// | ``unencrypted`` | plain RTP (`RTP/AVP`) | plain RTP | none |
public enum MediaSecurity: Sendable, Hashable {
    /// WebRTC's keying (ICE + DTLS-SRTP) when the peer has it, SDES when it has only that: what
    /// browsers, WebRTC gateways, baresip and desk phones each accept. The default.
    ///
    /// SDES keys are only sent or accepted over TLS signaling, or with a peer on loopback.
    case automatic
    /// DTLS-SRTP (RFC 5764) with ICE only: keys are agreed on the media path and never appear
    /// in the signaling, and the peer's certificate is checked against its SDP fingerprint.
    case dtls
    /// SDES-SRTP (RFC 4568) only, as before WebRTC. The keys travel in the SDP, so a call over
    /// UDP or TCP signaling to a peer that is not on loopback fails with 53400, and such an
    /// incoming call is refused (488): use TLS (`transport: .tls`, or a `sips:` proxy).
    case sdes
    /// As ``automatic``, and SDES keys may also travel over UDP or TCP signaling: anyone on the
    /// signaling path can then decrypt or forge an SDES call's media (RFC 4568 §8.3). Only on a
    /// network you trust; a warning is logged once.
    case automaticOverUnencryptedSignaling
    /// SDES-SRTP whose keys may also travel over UDP or TCP signaling: anyone on the signaling
    /// path can then decrypt or forge the media (RFC 4568 §8.3). Only on a network you trust;
    /// a warning is logged once.
    case sdesOverUnencryptedSignaling
    /// Plain RTP, for peers that cannot encrypt at all.
    case unencrypted

    /// The names `voicecall --media-security` takes.
    package init?(name: String) {
        switch name {
        case "automatic": self = .automatic
        case "dtls": self = .dtls
        case "sdes": self = .sdes
        case "sdes-unencrypted-signaling": self = .sdesOverUnencryptedSignaling
        case "automatic-unencrypted-signaling": self = .automaticOverUnencryptedSignaling
        case "unencrypted": self = .unencrypted
        default: return nil
        }
    }

    /// Whether SDES keys may travel over UDP or TCP signaling.
    var allowsKeysOverUnencryptedSignaling: Bool { self == .sdesOverUnencryptedSignaling || self == .automaticOverUnencryptedSignaling }
}
