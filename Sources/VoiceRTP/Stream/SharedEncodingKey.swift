import VoiceMediaTypes

/// What makes two streams' encoded audio identical when they encode the same samples: the
/// codec with its settings, the frame length, and the FEC, loss hint and bitrate the stream's
/// loss adaptation has set. A conference bridge encodes its shared mix once for all listeners
/// whose streams have the same key (and frame phase), then each stream packetizes and protects
/// the payload as its own (``RTPStream/send(encoded:at:output:)``).
package struct SharedEncodingKey: Hashable, Sendable {
    /// The negotiated codec, with its settings (a peer's bitrate cap included).
    package var codec: MediaCodec
    /// Milliseconds per frame.
    package var ptime: Int
    /// In-band FEC, the loss hint (percent) and the bitrate, as the encoder is set now.
    package var fec: Bool
    package var lossHint: Int
    package var bitrate: Int

    package init(codec: MediaCodec, ptime: Int, fec: Bool, lossHint: Int, bitrate: Int) {
        self.codec = codec
        self.ptime = ptime
        self.fec = fec
        self.lossHint = lossHint
        self.bitrate = bitrate
    }

    /// 48 kHz samples per frame.
    package var samplesPerFrame: Int { 48 * ptime }
}
