import VoiceMedia

extension CallCore {
    /// The hub of the device the call's audio runs on, while some port of it (the call's media,
    /// or another call's) is alive.
    var deviceHub: SharedAudioDevice? {
        currentAudioDevice.flatMap { SharedAudioDeviceRegistry.shared.existingHub(for: $0) }
    }

    /// Asks the call's device for the processing the call requested, if it requested any, and
    /// records what the device runs. Called once the media holds its port, and after a switch.
    func applyAudioProcessing() {
        guard let hub = deviceHub else { return }
        let processing = hub.processing
        if let requested = requestedAudioProcessing {
            if let fallback = processing.setOptions(requested) { warnUnprocessed(fallback) }
        } else if let fallback = processing.fallback {
            warnUnprocessed(fallback)
        }
        let current = processing.options
        call.update { $0.audioProcessing = current }
    }

    /// ``Call/audioProcessing`` was set.
    func setAudioProcessing(_ options: AudioProcessingOptions) {
        requestedAudioProcessing = options
        applyAudioProcessing()
    }

    private func warnUnprocessed(_ fallback: AudioProcessingFallback) {
        // `.noPlaybackSide` still runs every stage but echo cancellation: not "unprocessed".
        client.logger.warning("call \(sid): audio processing falls back: \(fallback)")
    }
}
