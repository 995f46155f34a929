/// Which way audio goes through a device.
public enum AudioDeviceDirection: String, Hashable, Sendable, CaseIterable {
    /// A microphone, or anything recorded from (a sound server's monitor of a speaker).
    case capture
    /// A speaker or a headset's earpiece.
    case playback
}

/// What lists a machine's audio devices.
public enum AudioDeviceBackend: String, Hashable, Sendable {
    /// The desktop's sound server through libpulse: PulseAudio, or PipeWire's `pipewire-pulse`.
    case pulseAudio
    /// ALSA's device hints (`snd_device_name_hint`), where no sound server runs.
    case alsa
}

/// One audio device as ``AudioDeviceMonitor`` lists it, as a browser's `MediaDeviceInfo`
/// describes one (`deviceId`, `kind`, `label`).
public struct AudioDeviceInfo: Hashable, Sendable, Identifiable, CustomStringConvertible {
    /// Stable while the device exists and the same again when it comes back (a headset plugged
    /// in again): the backend, the direction and the device's name, e.g.
    /// `pulse:playback:alsa_output.usb-Jabra-00.analog-stereo` or `alsa:capture:hw:CARD=PCH,DEV=0`.
    public var id: String
    /// The name a device is opened with: a PulseAudio sink or source for ``PulseAudioDevice``,
    /// a PCM name for ``ALSAAudioDevice``.
    public var name: String
    /// What a person calls it ("Jabra Evolve 65 Analog Stereo"): the server's description, or
    /// ALSA's hint.
    public var label: String
    /// Capture or playback.
    public var direction: AudioDeviceDirection
    /// Whether it is the default for its direction now.
    public var isDefault: Bool
    /// The formats it runs at natively, as far as the backend says (PulseAudio: its sample
    /// rate and channels; ALSA's hints say nothing: empty). Any device opened through the
    /// sound server converts from the call's format.
    public var formats: [AudioFormat]
    /// A capture device that records what a playback device plays (PulseAudio's monitors).
    public var isMonitor: Bool
    /// What listed it.
    public var backend: AudioDeviceBackend

    /// Creates a description.
    public init(
        id: String, name: String, label: String, direction: AudioDeviceDirection, isDefault: Bool, formats: [AudioFormat] = [],
        isMonitor: Bool = false, backend: AudioDeviceBackend
    ) {
        self.id = id
        self.name = name
        self.label = label
        self.direction = direction
        self.isDefault = isDefault
        self.formats = formats
        self.isMonitor = isMonitor
        self.backend = backend
    }

    /// E.g. `playback "Speakers" (pulse:playback:speaker, default)`.
    public var description: String { "\(direction) \"\(label)\" (\(id)\(isDefault ? ", default" : ""))" }
}

/// A change to the list of audio devices, as a browser's `devicechange` reports one, with what
/// changed.
public enum AudioDeviceChange: Hashable, Sendable {
    /// A device appeared (plugged in, a sound server that came back).
    case added(AudioDeviceInfo)
    /// A device went away (unplugged, its sound server gone); the description it last had.
    case removed(AudioDeviceInfo)
    /// A device's label or formats changed (a headset switched profile).
    case changed(AudioDeviceInfo)
    /// The default for a direction is another device now, or none (nil).
    case defaultChanged(AudioDeviceDirection, AudioDeviceInfo?)
}
