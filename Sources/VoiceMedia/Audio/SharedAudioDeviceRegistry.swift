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
    private struct Table {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// Dead entries are swept when the table reaches this size, so a call start does not
        /// scan every entry (a server gives each call a device of its own).
        var sweepAt = 64
    }
    private let hubs = Locked(Table())

    /// Creates an empty registry.
    package init() {}

    /// The hub wrapping `device`, created on first use.
    package func hub(for device: any AudioDevice) -> SharedAudioDevice {
        hubs.withLock { table in
            if table.entries.count >= table.sweepAt {
                for (key, entry) in table.entries where entry.hub == nil { table.entries[key] = nil }
                table.sweepAt = max(64, table.entries.count * 2)
            }
            let key = ObjectIdentifier(device)
            if let hub = table.entries[key]?.hub { return hub }
            let hub = SharedAudioDevice(wrapping: device)
            table.entries[key] = Entry(hub: hub)
            return hub
        }
    }

    /// The hub wrapping `device` if one lives (some port of it exists), without creating one.
    package func existingHub(for device: any AudioDevice) -> SharedAudioDevice? {
        hubs.withLock { $0.entries[ObjectIdentifier(device)]?.hub }
    }

    /// A new port on the hub wrapping `device`.
    package func port(for device: any AudioDevice) -> SharedAudioDevicePort { hub(for: device).makePort() }

    /// Devices with a live hub (some port of theirs still exists).
    package var hubCount: Int { hubs.withLock { table in table.entries.values.count(where: { $0.hub != nil }) } }
}
