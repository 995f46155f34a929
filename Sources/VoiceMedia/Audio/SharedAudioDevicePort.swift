import VoiceSupport

/// One stream's share of a ``SharedAudioDevice``: an ``AudioDevice`` in the underlying device's
/// formats that can run next to the hub's other ports.
///
/// Starting a port subscribes its context to the hub (starting the underlying device if it is
/// the first); stopping it unsubscribes and returns once the hub no longer calls the context,
/// even when the underlying device has failed or stopped on its own. Releasing a port stops it.
/// ``isEnabled`` is the underlying device's, shared by every port.
///
/// Threading: thread-safe.
package final class SharedAudioDevicePort: AudioDevice, Sendable {
    /// The hub this port belongs to.
    package let hub: SharedAudioDevice
    private let captureSubscriber = Locked<SharedAudioDeviceSide.Subscriber?>(nil)
    private let renderSubscriber = Locked<SharedAudioDeviceSide.Subscriber?>(nil)

    init(hub: SharedAudioDevice) { self.hub = hub }

    deinit {
        stopCapturing()
        stopRendering()
    }

    /// The underlying device's capture format.
    package var captureFormat: AudioFormat? { hub.device.captureFormat }
    /// The underlying device's render format.
    package var renderFormat: AudioFormat? { hub.device.renderFormat }
    /// The underlying device's switch, shared by every port of the hub.
    package var isEnabled: Bool {
        get { hub.isEnabled }
        set { hub.isEnabled = newValue }
    }

    /// The underlying device's output volume.
    package var outputVolume: Double? { hub.device.outputVolume }
    /// The underlying device's default processing (the hub runs it, not the port).
    package var defaultAudioProcessing: AudioProcessingOptions { hub.device.defaultAudioProcessing }
    /// The underlying device's latency.
    package var latency: AudioDeviceLatency? { hub.device.latency }

    /// Starts delivering the shared device's captured audio to `context`.
    ///
    /// - Throws: ``AudioDeviceError/Kind/alreadyStarted`` if this port captures already, or what
    ///   the underlying device throws when this port is the first to capture.
    package func startCapturing(context: any AudioDeviceContext) throws(AudioDeviceError) {
        let subscriber = try hub.capture.subscribe(ObjectIdentifier(self), context: context)
        captureSubscriber.withLock { $0 = subscriber }
    }

    /// Stops capturing for this port; the device stops once no port captures. Idempotent.
    package func stopCapturing() { stop(hub.capture, captureSubscriber) }

    /// Starts mixing `context`'s render audio into what the shared device plays.
    ///
    /// - Throws: as ``startCapturing(context:)``.
    package func startRendering(context: any AudioDeviceContext) throws(AudioDeviceError) {
        let subscriber = try hub.render.subscribe(ObjectIdentifier(self), context: context)
        renderSubscriber.withLock { $0 = subscriber }
    }

    /// Stops rendering for this port; the device stops once no port renders. Idempotent.
    package func stopRendering() { stop(hub.render, renderSubscriber) }

    private func stop(_ side: SharedAudioDeviceSide, _ slot: Locked<SharedAudioDeviceSide.Subscriber?>) {
        guard let subscriber = slot.withLock({ $0 }) else { return }
        // Kept when stopped from inside a callback, so a later stop or the release finishes the job.
        if side.unsubscribe(subscriber) {
            slot.withLock { if $0 === subscriber { $0 = nil } }
        }
    }
}
