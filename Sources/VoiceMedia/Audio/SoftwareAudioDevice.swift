import VoiceSupport

/// What the software devices (null, buffer, file) share: the on/off switch, the pacing, and one
/// capture and one render side, each driving a ``SoftwareAudioPump`` over the device's source or
/// sink. A device supplies only where its capture samples come from and where rendered ones go.
///
/// Threading: thread-safe; stops both sides when released.
package final class SoftwareAudioDevice: Sendable {
    package let pacing: SoftwareAudioPacing
    /// The clock phase both directions start on (nil when not paced by a phased clock).
    private let phase: Int?
    private let enabled = AudioEnableFlag(true)
    private let capture: SoftwareDeviceSide
    private let render: SoftwareDeviceSide

    /// A device whose pump threads are named `label-cap` and `label-ren`.
    package init(label: String, pacing: SoftwareAudioPacing) {
        self.pacing = pacing
        if case .clock(let clock) = pacing.mode { phase = clock.nextPhase() } else { phase = nil }
        capture = SoftwareDeviceSide(label: label + "-cap")
        render = SoftwareDeviceSide(label: label + "-ren")
    }

    deinit {
        capture.stop()
        render.stop()
    }

    /// When false, capture delivers silence and render discards what it pulls.
    package var isEnabled: Bool {
        get { enabled.isEnabled }
        set { enabled.isEnabled = newValue }
    }

    /// Starts delivering `source`'s samples, in `format`, to `context`. `prepare` runs first,
    /// only when capture is idle (e.g. rewinding the source).
    package func startCapturing<Source: SoftwareCaptureSource>(
        from source: Source, format: AudioFormat, context: any AudioDeviceContext, prepare: () -> Void = {}
    ) throws(AudioDeviceError) {
        try capture.start(
            SoftwareAudioPump<Source, SilenceAudioEndpoint>(direction: .capture(source), format: format, context: context, enabled: enabled),
            pacing: pacing, phase: phase, prepare: prepare)
    }

    /// Starts pulling render audio, in `format`, from `context` into `sink`.
    package func startRendering<Sink: SoftwareRenderSink>(
        into sink: Sink, format: AudioFormat, context: any AudioDeviceContext
    ) throws(AudioDeviceError) {
        try render.start(
            SoftwareAudioPump<SilenceAudioEndpoint, Sink>(direction: .render(sink), format: format, context: context, enabled: enabled),
            pacing: pacing, phase: phase)
    }

    /// Stops capturing; no capture callback runs after it returns. Idempotent.
    package func stopCapturing() { capture.stop() }

    /// Stops rendering; no render callback runs after it returns. Idempotent.
    package func stopRendering() { render.stop() }

    /// Whether capture runs (started and not stopped).
    package var isCapturing: Bool { capture.isRunning }
    /// Whether rendering runs (started and not stopped).
    package var isRendering: Bool { render.isRunning }
}
