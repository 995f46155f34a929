import VoiceMedia
import VoiceSupport

extension MediaEngine {
    /// An embedded engine: no thread and no socket. Virtual time from `start`, moved by
    /// ``MediaEngine/advance(to:)``; streams bind their transports on `network`; software
    /// devices paced on ``MediaEngine/audioClock`` tick in step.
    package static func embedded(
        network: InMemoryMediaNetwork, tickInterval: MediaTime = .milliseconds(5), start: MediaTime = .zero
    ) -> MediaEngine {
        MediaEngine(
            scheduler: EmbeddedMediaScheduler(network: network, tickInterval: tickInterval, start: start), tickInterval: tickInterval)
    }

    /// The in-memory network an embedded engine's streams bind on; nil on any other engine.
    package var network: InMemoryMediaNetwork? { (scheduler as? EmbeddedMediaScheduler)?.network }
}
