import VoiceMediaTypes
import VoiceSupport

/// What a renegotiation (the answer to a re-INVITE) changes in a running stream: the codec,
/// its payload types and ptime, and the SRTP keys. Everything that allocates (codec state,
/// SRTP contexts, the jitter buffer) is built here, on the controlling thread; the media
/// thread only swaps it in (``StreamCore/adopt(_:)``).
final class StreamRenegotiation: @unchecked Sendable {
    // @unchecked: built on one thread, then handed once to the stream's media thread through
    // `StreamControl.renegotiation`; never touched by the builder after that.

    /// The new codec state, when the codec or the ptime changed.
    struct Codec {
        var encoder: any MediaEncoder
        var decoder: any MediaDecoder
        var jitterBuffer: JitterBuffer
        var lossAdaptation: OpusLossAdaptation?
    }

    /// The configuration in force after the change.
    let configuration: AudioStreamConfiguration
    let codec: Codec?
    /// New SRTP sessions: `send` when our key changed (or encryption was switched), `receive`
    /// when the peer's did. `.some(nil)` turns encryption off in that direction.
    let send: SRTPSession??
    let receive: SRTPSession??

    private init(unchecked configuration: AudioStreamConfiguration, codec: Codec?, send: SRTPSession??, receive: SRTPSession??) {
        self.configuration = configuration
        self.codec = codec
        self.send = send
        self.receive = receive
    }

    /// Prepares the move from `old` to `new`; nil when nothing the media thread runs changes.
    /// - Throws: ``AudioStreamError`` for a codec or SRTP setup that fails (the stream keeps
    ///   running as it was).
    init?(from old: AudioStreamConfiguration, to new: AudioStreamConfiguration) throws(AudioStreamError) {
        guard [10, 20, 40, 60].contains(new.ptime) else {
            throw .invalidConfiguration("ptime \(new.ptime) ms (10, 20, 40 or 60)")
        }
        guard new.payloadType <= 127, (new.telephoneEventPayloadType ?? 0) <= 127,
            new.telephoneEventPayloadType != new.payloadType
        else {
            throw .invalidConfiguration("RTP payload types \(new.payloadType), \(new.telephoneEventPayloadType.map(String.init) ?? "-")")
        }
        var codec: Codec?
        if old.codec != new.codec || old.ptime != new.ptime {
            do throws(MediaCodecError) {
                codec = Codec(
                    encoder: try new.codec.makeEncoder(ptime: new.ptime), decoder: try new.codec.makeDecoder(),
                    jitterBuffer: StreamCore.makeJitterBuffer(for: new), lossAdaptation: StreamCore.makeLossAdaptation(for: new))
            } catch {
                throw .codec(error)
            }
        }
        var send: SRTPSession??
        var receive: SRTPSession??
        do throws(SRTPError) {
            switch (old.encryption, new.encryption) {
            case (.srtp(let oldLocal, let oldRemote), .srtp(let local, let remote)):
                if oldLocal != local {
                    // Both directions anew: the peer starts a new context for our new key.
                    let session = try SRTPSession(outbound: local, inbound: remote)
                    send = .some(session)
                    receive = .some(session)
                } else if oldRemote != remote {
                    // Only the peer re-keyed: our sender context (and its rollover counter) goes on.
                    receive = .some(try SRTPSession(outbound: local, inbound: remote))
                }
            case (.unencrypted, .srtp(let local, let remote)):
                let session = try SRTPSession(outbound: local, inbound: remote)
                send = .some(session)
                receive = .some(session)
            case (.srtp, .unencrypted):
                send = .some(nil)
                receive = .some(nil)
            case (.unencrypted, .unencrypted):
                break
            }
        } catch {
            throw .srtp(error)
        }
        let same =
            codec == nil && send == nil && receive == nil && old.payloadType == new.payloadType
            && old.telephoneEventPayloadType == new.telephoneEventPayloadType
        if same { return nil }
        self.configuration = new
        self.codec = codec
        self.send = send
        self.receive = receive
    }
}

extension StreamRenegotiation {
    /// This change made on top of `earlier`, which the media thread has not taken yet: one
    /// change with both effects.
    func following(_ earlier: StreamRenegotiation) -> StreamRenegotiation {
        StreamRenegotiation(
            unchecked: configuration, codec: codec ?? earlier.codec, send: send ?? earlier.send,
            receive: receive ?? earlier.receive)
    }
}

extension StreamCore {
    /// On the media thread: runs on with a renegotiated codec, payload types and keys. Our SSRC,
    /// sequence numbers and timestamps go on (RFC 3550 allows a payload type change within a
    /// source); the next packet carries the marker bit. A new codec or peer key means new
    /// packets from the peer, so the receive side starts over: statistics, jitter buffer and
    /// the choice of source.
    func adopt(_ change: StreamRenegotiation) {
        let receiveAnew = change.codec != nil || change.receive != nil
        configuration = change.configuration
        if let codec = change.codec {
            encoder = codec.encoder
            decoder = codec.decoder
            jitterBuffer = codec.jitterBuffer
            lossAdaptation = codec.lossAdaptation
            rtpClockRate = configuration.codec.rtpClockRate
            frameSamples48k = 48 * configuration.ptime
            frameRTPUnits = rtpClockRate / 1000 * configuration.ptime
            nextVirtualCapture = nil
            adoptCodecSettings()
        }
        if let send = change.send { srtpSend = send }
        if let receive = change.receive { srtpReceive = receive }
        if receiveAnew {
            receiverStats = RTPReceiverStatistics(clockRate: rtpClockRate)
            sourceGate.reset()
        }
        markerNext = true
        renegotiations += 1
    }
}
