import VoiceMediaTypes
import VoiceSupport
/// Encodes the stream's 48 kHz mono frames into RTP payloads of one negotiated codec.
///
/// Implementers guarantee: ``encode(_:into:)`` allocates nothing and never blocks.
/// Threading: not thread-safe; used from the stream's send thread only (not `Sendable`).
package protocol MediaEncoder: AnyObject {
    /// The codec this encoder produces.
    var codec: MediaCodec { get }
    /// Packetization time in milliseconds.
    var ptime: Int { get }
    /// 48 kHz samples in one input frame (`ptime × 48`).
    var samplesPerFrame: Int { get }
    /// RTP timestamp ticks per encoded frame.
    var rtpTimestampIncrement: Int { get }
    /// An output buffer size that always suffices.
    var maxPayloadSize: Int { get }

    /// Encodes one frame of exactly ``samplesPerFrame`` 48 kHz mono samples.
    /// - Returns: payload bytes written into `out`; 0 means "nothing to send" (Opus DTX silence).
    func encode(_ frame48k: UnsafeBufferPointer<Int16>, into out: UnsafeMutableRawBufferPointer) throws(MediaCodecError) -> Int
    /// Updates the expected packet loss (0...100, clamped). No-op for G.711.
    func setPacketLossPercent(_ p: Int)
    /// Turns in-band FEC on or off. No-op for G.711.
    func setFEC(_ on: Bool)
    /// Changes the target bitrate (bits per second). No-op for G.711.
    func setBitrate(_ bps: Int)
}
