import VoiceMediaTypes
import VoiceRTP
import VoiceSupport

/// Builds what a renegotiation (the answer to a re-INVITE) changes in a running stream
/// (``RTPStreamChange``): a new codec, its payload types and ptime, and SRTP sessions for new
/// keys. Everything that allocates is made here, on the controlling thread; the media thread
/// only swaps it in.
enum StreamRenegotiation {
    /// The move from `old` to `new`; nil when nothing the media thread runs changes.
    /// - Throws: ``AudioStreamError`` for a codec or SRTP setup that fails (the stream keeps
    ///   running as it was).
    static func change(from old: AudioStreamConfiguration, to new: AudioStreamConfiguration) throws(AudioStreamError) -> RTPStreamChange? {
        guard [10, 20, 40, 60].contains(new.ptime) else {
            throw .invalidConfiguration("ptime \(new.ptime) ms (10, 20, 40 or 60)")
        }
        guard new.payloadType <= 127, (new.telephoneEventPayloadType ?? 0) <= 127, (new.redPayloadType ?? 0) <= 127,
            new.telephoneEventPayloadType != new.payloadType, new.redPayloadType != new.payloadType,
            new.redPayloadType == nil || new.redPayloadType != new.telephoneEventPayloadType
        else {
            throw .invalidConfiguration("RTP payload types \(new.payloadType), \(new.telephoneEventPayloadType.map(String.init) ?? "-")")
        }
        var codec: RTPStreamChange.Codec?
        if old.codec != new.codec || old.ptime != new.ptime {
            do throws(MediaCodecError) {
                codec = RTPStreamChange.Codec(
                    encoder: try new.codec.makeEncoder(ptime: new.ptime), decoder: try new.codec.makeDecoder(), for: new)
            } catch {
                throw .codec(error)
            }
        }
        switch (old.encryption, new.encryption) {
        case (.dtlsSRTP, .dtlsSRTP): break
        case (.dtlsSRTP, _), (_, .dtlsSRTP):
            throw .invalidConfiguration("a running stream cannot switch between DTLS-SRTP and SDES or plain RTP")
        default: break
        }
        var send = RTPStreamChange.Protection.unchanged
        var receive = RTPStreamChange.Protection.unchanged
        do throws(SRTPError) {
            switch (old.encryption, new.encryption) {
            case (.srtp(let oldLocal, let oldRemote), .srtp(let local, let remote)):
                if oldLocal != local {
                    // Both directions anew: the peer starts a new context for our new key.
                    let session = try SRTPSession(outbound: local, inbound: remote)
                    send = .replaced(with: session)
                    receive = .replaced(with: session)
                } else if oldRemote != remote {
                    // Only the peer re-keyed: our sender context (and its rollover counter) goes on.
                    receive = .replaced(with: try SRTPSession(outbound: local, inbound: remote))
                }
            case (.unencrypted, .srtp(let local, let remote)):
                let session = try SRTPSession(outbound: local, inbound: remote)
                send = .replaced(with: session)
                receive = .replaced(with: session)
            case (.srtp, .unencrypted):
                send = .replaced(with: nil)
                receive = .replaced(with: nil)
            case (.unencrypted, .unencrypted), (.dtlsSRTP, .dtlsSRTP):
                // DTLS keys belong to the association on the stream's port, which a re-offer keeps.
                break
            case (.dtlsSRTP, _), (_, .dtlsSRTP):
                break  // refused above
            }
        } catch {
            throw .srtp(error)
        }
        let same =
            codec == nil && send.isUnchanged && receive.isUnchanged && old.payloadType == new.payloadType
            && old.telephoneEventPayloadType == new.telephoneEventPayloadType && old.redPayloadType == new.redPayloadType
            && old.peerBandwidthLimit == new.peerBandwidthLimit
        if same { return nil }
        return RTPStreamChange(configuration: new, codec: codec, send: send, receive: receive)
    }
}
