import VoiceMedia

extension VoiceClient {
    /// The device a call runs on: its own port on the process-wide hub of `device` (the call's
    /// options' device, else the client's), so any number of calls, of this client or others,
    /// can use one device at once. Nil when there is no device. Releasing the call's media
    /// releases the port, and with the last port the hub. A device made for one call (a
    /// conference room's port) is used as it is.
    func sharedAudioDevice(_ device: (any AudioDevice)?) -> (any AudioDevice)? {
        if let dedicated = device as? any DedicatedAudioDevice { return dedicated }
        return device.map { SharedAudioDeviceRegistry.shared.port(for: $0) }
    }
}
