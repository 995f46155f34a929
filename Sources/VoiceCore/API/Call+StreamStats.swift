import VoiceMedia
import VoiceRTP

extension Call {
    /// The audio stream's own figures (among them the media path's ICE and DTLS timings),
    /// delivered on the client's signaling loop; nil once the call has no media. What
    /// ``getStats(_:)`` reports is made from these.
    package func streamStats(_ completion: @escaping @Sendable (AudioStreamStats?) -> Void) {
        guard let core = core.withLock({ $0 }) else { return completion(nil) }
        core.client.onLoop { completion(core.media?.stats) }
    }

    /// Where the RFC 6464 levels the peer announces arrive (a conference room reads who talks
    /// from them), delivered on the client's signaling loop; nil without media.
    package func receivedAudioLevel(_ completion: @escaping @Sendable (ReceivedAudioLevel?) -> Void) {
        guard let core = core.withLock({ $0 }) else { return completion(nil) }
        core.client.onLoop { completion(core.media?.stream?.receivedAudioLevel) }
    }
}
