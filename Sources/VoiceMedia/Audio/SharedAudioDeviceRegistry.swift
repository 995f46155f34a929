import VoiceSupport

/// One ``SharedAudioDevice`` per device object, so every stream given the same device shares it.
///
/// Hubs are held weakly: a hub lives as long as one of its ports does (a port keeps its hub,
/// a hub its device), and a device no stream uses any more has no hub. Keys are object
/// identities, which cannot be reused while the hub keeps its device alive.
///
/// Threading: thread-safe.
package final class SharedAudioDeviceRegistry: Sendable {
    /// The process-wide registry calls share devices through.
    package static let shared = SharedAudioDeviceRegistry()

    private struct Entry {
        weak var hub: SharedAudioDevice?
    }
    private let hubs = Locked<[ObjectIdentifier: Entry]>([:])

    /// Creates an empty registry.
    package init() {}

    /// The hub wrapping `device`, created on first use.
    package func hub(for device: any AudioDevice) -> SharedAudioDevice {
        hubs.withLock { table in
            for (key, entry) in table where entry.hub == nil { table[key] = nil }
            let key = ObjectIdentifier(device)
            if let hub = table[key]?.hub { return hub }
            let hub = SharedAudioDevice(wrapping: device)
            table[key] = Entry(hub: hub)
            return hub
        }
    }

    /// A new port on the hub wrapping `device`.
    package func port(for device: any AudioDevice) -> SharedAudioDevicePort { hub(for: device).makePort() }

    /// Devices with a live hub (some port of theirs still exists).
    package var hubCount: Int { hubs.withLock { table in table.values.count(where: { $0.hub != nil }) } }
}
