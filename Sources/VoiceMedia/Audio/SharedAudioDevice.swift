/// One audio device shared by many streams: every stream hears what the device captures, and the
/// device plays the mix of what every stream renders. Twilio shares one device across all the
/// calls of a process the same way.
///
/// The hub wraps an underlying ``AudioDevice``, which supports one context per direction, and
/// vends ports (``makePort()``): devices of their own, one per stream, in the underlying device's
/// formats. A port's `start*` subscribes its context; the underlying device starts that direction
/// for the first subscriber and stops it when the last one leaves. Captured buffers go to every
/// capturing port unchanged; render audio is the saturating (Int16) sum of every rendering port's
/// audio, passed straight through when only one port renders. Device events (xrun, failure) go to
/// the ports of the direction that reported them. A failure is not passed on as such: the ports
/// hear that the direction is interrupted, the hub reopens the device with backoff for all of
/// them, and tells them when it runs again (see ``SharedAudioDeviceSide``). A device that cannot
/// open for a reason that may pass (busy, unplugged, sound server away) interrupts a starting
/// port the same way instead of failing it.
///
/// Voice processing (``DeviceAudioProcessing``) runs here, once per device: the render mix is
/// its echo reference and captured audio is processed before it fans out.
///
/// Real-time behaviour: the device thread never waits on a lock a control thread holds for
/// audio. It try-locks the subscriber list; if a port is starting or stopping at that very
/// moment it skips the period (drops that captured buffer, plays one period of silence). Mixing
/// uses a scratch buffer of one device period allocated here, in chunks when a callback asks for
/// more, so steady-state callbacks allocate nothing.
///
/// Threading: thread-safe. Ports may be started and stopped from any thread; a port may also be
/// stopped from inside its context's callbacks (the stop takes effect at once, the subscription
/// is cleaned up by a later start or stop). The hub keeps the underlying device alive; ports
/// keep the hub alive.
package final class SharedAudioDevice: Sendable {
    /// The device all ports share.
    package let device: any AudioDevice
    let capture: SharedAudioDeviceSide
    let render: SharedAudioDeviceSide
    /// The device's voice processing: the played mix is its echo reference, and the microphone
    /// signal is processed once, before it reaches the ports.
    package let processing: DeviceAudioProcessing

    /// Wraps `device`. Nothing starts until a port does. Use one hub per device object (see
    /// ``SharedAudioDeviceRegistry``): two hubs on one device conflict like two streams would.
    package init(wrapping device: any AudioDevice, reopen: AudioDeviceReopenSchedule = .standard) {
        self.device = device
        let processing = DeviceAudioProcessing(device: device)
        self.processing = processing
        self.capture = SharedAudioDeviceSide(direction: .capture, device: device, schedule: reopen, processing: processing)
        self.render = SharedAudioDeviceSide(direction: .render, device: device, schedule: reopen, processing: processing)
    }

    deinit {
        // Ports stop their subscriptions when released; this only catches one stopped from inside a callback.
        capture.shutDown()
        render.shutDown()
    }

    /// A new port: an ``AudioDevice`` for one stream, sharing this hub's device.
    package func makePort() -> SharedAudioDevicePort { SharedAudioDevicePort(hub: self) }

    /// The underlying device's switch: when false it captures silence and plays nothing, for every port.
    package var isEnabled: Bool {
        get { device.isEnabled }
        set { device.isEnabled = newValue }
    }

    /// Ports currently capturing.
    package var capturingPortCount: Int { capture.subscriberCount }
    /// Ports currently rendering.
    package var renderingPortCount: Int { render.subscriberCount }
    /// Whether the hub has the underlying device capturing.
    package var isCapturing: Bool { capture.isDeviceRunning }
    /// Whether the hub has the underlying device rendering.
    package var isRendering: Bool { render.isDeviceRunning }
    /// Whether a direction in use is interrupted (its device failed or could not open, and is
    /// being reopened).
    package var isInterrupted: Bool { capture.interruption != nil || render.interruption != nil }
    /// Interruptions begun so far, both directions.
    package var interruptionCount: Int { capture.interruptionCount + render.interruptionCount }
}
