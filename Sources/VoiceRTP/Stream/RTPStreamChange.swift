import VoiceSupport

/// What a renegotiation (the answer to a re-INVITE) changes in a running stream: the codec,
/// its payload types and ptime, and the protection keys. Everything that allocates (codec
/// state, protection contexts, the jitter buffer) is built by whoever makes the change, off
/// the media thread; ``RTPStream/adopt(_:)`` only swaps it in.
package struct RTPStreamChange {
    /// The new codec state, when the codec or the ptime changed.
    package struct Codec {
        package var encoder: any MediaEncoder
        package var decoder: any MediaDecoder
        package var jitterBuffer: JitterBuffer
        var lossAdaptation: OpusLossAdaptation?

        /// Codec state for `configuration`, from an encoder and decoder made for it.
        package init(encoder: any MediaEncoder, decoder: any MediaDecoder, for configuration: AudioStreamConfiguration) {
            self.encoder = encoder
            self.decoder = decoder
            self.jitterBuffer = RTPStream.makeJitterBuffer(for: configuration)
            self.lossAdaptation = RTPStream.makeLossAdaptation(for: configuration)
        }
    }

    /// What happens to one direction's protection.
    package enum Protection {
        /// It stays as it is.
        case unchanged
        /// It is replaced (a new key), or turned off (nil).
        case replaced(with: (any PacketProtection)?)
    }

    /// The configuration in force after the change.
    package var configuration: AudioStreamConfiguration
    package var codec: Codec?
    package var send: Protection
    package var receive: Protection

    package init(configuration: AudioStreamConfiguration, codec: Codec?, send: Protection, receive: Protection) {
        self.configuration = configuration
        self.codec = codec
        self.send = send
        self.receive = receive
    }

    /// This change made on top of `earlier`, which the stream has not taken yet: one change
    /// with both effects.
    package func following(_ earlier: RTPStreamChange) -> RTPStreamChange {
        RTPStreamChange(
            configuration: configuration, codec: codec ?? earlier.codec, send: send.isUnchanged ? earlier.send : send,
            receive: receive.isUnchanged ? earlier.receive : receive)
    }
}

extension RTPStreamChange.Protection {
    /// Whether the protection stays as it is.
    package var isUnchanged: Bool {
        if case .unchanged = self { return true }
        return false
    }
}

extension RTPStream {
    /// Runs on with a renegotiated codec, payload types and keys. Our SSRC, sequence numbers
    /// and timestamps go on (RFC 3550 allows a payload type change within a source); the next
    /// packet carries the marker bit. A new codec or peer key means new packets from the peer,
    /// so the receive side starts over: statistics, jitter buffer and the choice of source.
    package mutating func adopt(_ change: RTPStreamChange) {
        var receiveAnew = change.codec != nil
        if change.configuration.redPayloadType == nil { redHistory.removeAll() }
        configuration = change.configuration
        if let codec = change.codec {
            encoder = codec.encoder
            decoder = codec.decoder
            jitterBuffer = codec.jitterBuffer
            redHistory.removeAll()
            announcedSilence.horizon = Self.announcedSilenceHorizon(for: configuration)
            lossAdaptation = codec.lossAdaptation
            rtpClockRate = configuration.codec.rtpClockRate
            frameSamples48k = 48 * configuration.ptime
            frameRTPUnits = rtpClockRate / 1000 * configuration.ptime
            adoptCodecSettings()
        }
        // A new bandwidth limit, or RED on or off, moves the primary's share of it.
        reapplyBitrate()
        if case .replaced(let protection) = change.send { sendProtection = protection }
        if case .replaced(let protection) = change.receive {
            receiveProtection = protection
            receiveAnew = true
        }
        if receiveAnew {
            receiverStats = RTPReceiverStatistics(clockRate: rtpClockRate)
            sourceGate.reset()
            newestSequence = nil
        }
        markerNext = true
        renegotiations += 1
    }
}

extension RTPStream {
    /// Keys that arrived on the media path itself (a DTLS-SRTP handshake finished): both
    /// directions are protected from now on. Nothing was sent or played before, so nothing
    /// else changes.
    package mutating func installProtection(_ protection: any PacketProtection) {
        sendProtection = protection
        receiveProtection = protection
        sourceGate.reset()
        newestSequence = nil
        markerNext = true
    }
}
