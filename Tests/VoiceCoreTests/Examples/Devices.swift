// The README's devices example, as printed there (DocumentationExamplesTests checks the text
// and runs it on the test's own sound server).
import VoiceCore

func pickAHeadset(monitor: AudioDeviceMonitor) async throws -> any AudioDevice {
    let changes = monitor.changes  // before the list: nothing is missed between the two
    for device in monitor.devices { print(device.direction, device.label, device.isDefault ? "(default)" : "") }
    for await change in changes {
        if case .added(let headset) = change, headset.direction == .playback {
            return try monitor.makeAudioDevice(playback: headset)  // nil ones: the defaults, followed
        }
    }
    return try monitor.makeAudioDevice()
}
