/// The list of a machine's audio devices as a value, driven by what the backend reports (a
/// device present, a device gone, the defaults, the server lost, a full listing) and
/// returning what changed for the app, in order: removals, additions, changes, then defaults.
///
/// PulseAudio names a device by its index in its events and removals carry only that, so the
/// catalog keeps each direction's devices by index; the app sees ``AudioDeviceInfo/id``, made
/// from the device's name, which outlives the index (a device plugged in again gets a new
/// index and the same id).
package struct AudioDeviceCatalog: Sendable {
    /// A device as the backend reports it.
    package struct Record: Hashable, Sendable {
        package var direction: AudioDeviceDirection
        /// The backend's handle for it: PulseAudio's sink or source index, a hint's position.
        package var index: UInt32
        package var name: String
        package var label: String
        package var formats: [AudioFormat]
        package var isMonitor: Bool

        package init(direction: AudioDeviceDirection, index: UInt32, name: String, label: String, formats: [AudioFormat] = [], isMonitor: Bool = false) {
            self.direction = direction
            self.index = index
            self.name = name
            self.label = label
            self.formats = formats
            self.isMonitor = isMonitor
        }
    }

    /// What the backend reported.
    package enum Event: Sendable {
        /// A device exists (new, or its description changed).
        case present(Record)
        /// The device at this index is gone.
        case absent(AudioDeviceDirection, index: UInt32)
        /// The default devices' names now (nil: none).
        case defaults(capture: String?, playback: String?)
        /// Every device and the defaults at once (a poll of ALSA's hints, a listing after connecting).
        case listing([Record], defaultCapture: String?, defaultPlayback: String?)
        /// The backend is gone (the sound server went away): no devices until it lists again.
        case lost
    }

    private struct Key: Hashable {
        var direction: AudioDeviceDirection
        var index: UInt32
    }

    package let backend: AudioDeviceBackend
    private var records: [Key: Record] = [:]
    private var defaultNames: [AudioDeviceDirection: String] = [:]
    /// The devices now, playback then capture, each in the backend's order.
    package private(set) var devices: [AudioDeviceInfo] = []

    package init(backend: AudioDeviceBackend) { self.backend = backend }

    /// The default device for `direction`, if there is one.
    package func defaultDevice(_ direction: AudioDeviceDirection) -> AudioDeviceInfo? {
        devices.first { $0.direction == direction && $0.isDefault }
    }

    /// Applies `event` and returns what it changed for the app (nothing, for an event that
    /// repeats what was known).
    package mutating func apply(_ event: Event) -> [AudioDeviceChange] {
        apply([event])
    }

    /// Applies `events` as one step and returns what they changed together: a removed default
    /// and the new default reported with it are one removal and one default change.
    package mutating func apply(_ events: [Event]) -> [AudioDeviceChange] {
        let before = devices
        for event in events { record(event) }
        devices = derive()
        return Self.changes(from: before, to: devices)
    }

    private mutating func record(_ event: Event) {
        switch event {
        case .present(let record):
            records[Key(direction: record.direction, index: record.index)] = record
        case .absent(let direction, let index):
            records[Key(direction: direction, index: index)] = nil
        case .defaults(let capture, let playback):
            defaultNames[.capture] = capture
            defaultNames[.playback] = playback
        case .listing(let list, let capture, let playback):
            records = Dictionary(list.map { (Key(direction: $0.direction, index: $0.index), $0) }, uniquingKeysWith: { _, last in last })
            defaultNames[.capture] = capture
            defaultNames[.playback] = playback
        case .lost:
            records = [:]
            defaultNames = [:]
        }
    }

    private func derive() -> [AudioDeviceInfo] {
        let prefix = backend == .pulseAudio ? "pulse" : "alsa"
        let ordered = records.values.sorted { ($0.direction == .playback ? 0 : 1, $0.index) < ($1.direction == .playback ? 0 : 1, $1.index) }
        var seen = Set<String>()
        // Two indices with one name (a device replaced before its removal was heard): the newer
        // (higher) index wins, in the older one's place.
        let newest = Dictionary(ordered.map { ("\(prefix):\($0.direction.rawValue):\($0.name)", $0) }, uniquingKeysWith: { _, last in last })
        return ordered.compactMap { listed in
            let id = "\(prefix):\(listed.direction.rawValue):\(listed.name)"
            guard seen.insert(id).inserted, let record = newest[id] else { return nil }
            return AudioDeviceInfo(
                id: id, name: record.name, label: record.label, direction: record.direction,
                isDefault: defaultNames[record.direction] == record.name, formats: record.formats, isMonitor: record.isMonitor,
                backend: backend)
        }
    }

    /// What changed between two lists, by id.
    static func changes(from before: [AudioDeviceInfo], to after: [AudioDeviceInfo]) -> [AudioDeviceChange] {
        let old = Dictionary(before.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let new = Dictionary(after.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var changes: [AudioDeviceChange] = before.filter { new[$0.id] == nil }.map { .removed($0) }
        changes += after.filter { old[$0.id] == nil }.map { .added($0) }
        changes += after.compactMap { device in
            guard let previous = old[device.id], previous.label != device.label || previous.formats != device.formats || previous.isMonitor != device.isMonitor
            else { return nil }
            return .changed(device)
        }
        for direction in [AudioDeviceDirection.playback, .capture] {
            let was = before.first { $0.direction == direction && $0.isDefault }
            let now = after.first { $0.direction == direction && $0.isDefault }
            if was?.id != now?.id { changes.append(.defaultChanged(direction, now)) }
        }
        return changes
    }
}
