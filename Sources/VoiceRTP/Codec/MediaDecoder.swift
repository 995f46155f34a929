import VoiceMediaTypes
import VoiceSupport
/// Decodes RTP payloads of one negotiated codec into the stream's 48 kHz mono samples, and
/// fills gaps when packets are lost.
///
/// Implementers guarantee: no method allocates or blocks.
/// Threading: not thread-safe; used from the stream's receive/playout thread only (not `Sendable`).
package protocol MediaDecoder: AnyObject {
    /// The codec this decoder accepts.
    var codec: MediaCodec { get }
    /// True when ``decodeFEC(from:frames48k:into:)`` can recover a lost packet.
    var supportsFEC: Bool { get }

    /// RTP-clock samples carried by this payload (Opus: from the TOC; G.711: the byte count).
    func duration(of payload: UnsafeRawBufferPointer) throws(MediaCodecError) -> Int
    /// Decodes one payload.
    /// - Returns: 48 kHz samples written into `pcm48k`.
    func decode(_ payload: UnsafeRawBufferPointer, into pcm48k: UnsafeMutableBufferPointer<Int16>) throws(MediaCodecError) -> Int
    /// Fills `frames48k` samples for a lost packet (packet-loss concealment).
    /// - Returns: 48 kHz samples written (`frames48k`).
    func conceal(frames48k: Int, into pcm48k: UnsafeMutableBufferPointer<Int16>) throws(MediaCodecError) -> Int
    /// Recovers the packet lost just before `nextPayload` from the FEC data inside it; then
    /// decode `nextPayload` normally.
    /// - Returns: 48 kHz samples written, or nil when the codec has no FEC.
    func decodeFEC(
        from nextPayload: UnsafeRawBufferPointer, frames48k: Int, into pcm48k: UnsafeMutableBufferPointer<Int16>
    ) throws(MediaCodecError) -> Int?
}
