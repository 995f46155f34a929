import CPulse
import VoiceSupport

/// What the sound server says about its devices, as catalog events: a first listing (the
/// server's defaults, every sink and source), then, subscribed to sink, source and server
/// events, each device added, changed or removed and each change of the defaults.
///
/// libpulse answers through C callbacks on the connection's main loop; they queue events
/// here, and ``take(waitingMicroseconds:)`` turns the loop and hands them over. Used by one
/// thread at a time, as its connection.
final class PulseDeviceWatch {
    let connection: PulseConnection
    private var pending: [AudioDeviceCatalog.Event] = []
    /// Events that came while the first listing was gathered: they follow it.
    private var deferred: [AudioDeviceCatalog.Event] = []
    /// Removals waiting for the defaults they may have changed, so the two reach the app
    /// together (a removed default is followed by the new one, never by "no default" first).
    private var removals: [AudioDeviceCatalog.Event] = []
    /// The first listing while it is gathered.
    private var listing: (records: [AudioDeviceCatalog.Record], defaults: (capture: String?, playback: String?), open: Int)?

    /// Connects (as ``PulseConnection``), subscribes, and waits for the first listing, which
    /// ``take(waitingMicroseconds:)`` returns first.
    init(server: String?, timeout: Duration = .seconds(2)) throws(AudioDeviceError) {
        connection = try PulseConnection(applicationName: "VoiceSDK device monitor", server: server, timeout: timeout)
        let me = Unmanaged.passUnretained(self).toOpaque()
        pa_context_set_subscribe_callback(connection.context, { _, event, index, me in
            guard let me else { return }
            Unmanaged<PulseDeviceWatch>.fromOpaque(me).takeUnretainedValue().received(event, index: index)
        }, me)
        let mask = PA_SUBSCRIPTION_MASK_SINK.rawValue | PA_SUBSCRIPTION_MASK_SOURCE.rawValue | PA_SUBSCRIPTION_MASK_SERVER.rawValue
        release(pa_context_subscribe(connection.context, pa_subscription_mask_t(rawValue: mask), nil, nil))
        listing = (records: [], defaults: (nil, nil), open: 3)
        requestDefaults(listed: true)
        release(pa_context_get_sink_info_list(connection.context, Self.sinkListed, me))
        release(pa_context_get_source_info_list(connection.context, Self.sourceListed, me))
        try connection.wait(until: "list the devices on \(connection.serverName)", timeout: timeout) { () throws(AudioDeviceError) -> Bool in
            guard connection.isConnected else { throw connection.failure(.openFailed, "list the devices") }
            return listing == nil
        }
    }

    deinit { pa_context_set_subscribe_callback(connection.context, nil, nil) }

    /// Turns the main loop (waiting up to `waitingMicroseconds` for the server) and returns
    /// what it reported since the last call. Throws once the connection is lost.
    func take(waitingMicroseconds: Int32) throws(AudioDeviceError) -> [AudioDeviceCatalog.Event] {
        if pending.isEmpty {
            guard connection.iterate(timeoutMicroseconds: waitingMicroseconds), connection.isConnected else {
                throw connection.failure(.ioFailed, "the connection to \(connection.serverName) was lost")
            }
        }
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }

    private func received(_ event: pa_subscription_event_type_t, index: UInt32) {
        let facility = event.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
        let removed = event.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue == PA_SUBSCRIPTION_EVENT_REMOVE.rawValue
        let me = Unmanaged.passUnretained(self).toOpaque()
        switch facility {
        case PA_SUBSCRIPTION_EVENT_SINK.rawValue:
            if removed {
                removals.append(.absent(.playback, index: index))
                requestDefaults(listed: false)
            } else {
                release(pa_context_get_sink_info_by_index(connection.context, index, Self.sinkChanged, me))
            }
        case PA_SUBSCRIPTION_EVENT_SOURCE.rawValue:
            if removed {
                removals.append(.absent(.capture, index: index))
                requestDefaults(listed: false)
            } else {
                release(pa_context_get_source_info_by_index(connection.context, index, Self.sourceChanged, me))
            }
        case PA_SUBSCRIPTION_EVENT_SERVER.rawValue:
            requestDefaults(listed: false)
        default:
            break
        }
    }

    private func requestDefaults(listed: Bool) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        release(pa_context_get_server_info(connection.context, listed ? Self.serverListed : Self.serverChanged, me))
    }

    private static let serverListed: pa_server_info_cb_t = { _, info, me in server(info, me, listed: true) }
    private static let serverChanged: pa_server_info_cb_t = { _, info, me in server(info, me, listed: false) }

    private static func server(_ info: UnsafePointer<pa_server_info>?, _ me: UnsafeMutableRawPointer?, listed: Bool) {
        guard let me else { return }
        let watch = Unmanaged<PulseDeviceWatch>.fromOpaque(me).takeUnretainedValue()
        let capture = info?.pointee.default_source_name.map { String(cString: $0) }
        let playback = info?.pointee.default_sink_name.map { String(cString: $0) }
        if listed {
            watch.listing?.defaults = (capture, playback)
            watch.closeListingPart()
        } else {
            watch.emit(watch.removals + [.defaults(capture: capture, playback: playback)])
            watch.removals = []
        }
    }

    private static let sinkListed: pa_sink_info_cb_t = { _, info, end, me in sink(info, end, me, listed: true) }
    private static let sinkChanged: pa_sink_info_cb_t = { _, info, end, me in sink(info, end, me, listed: false) }
    private static let sourceListed: pa_source_info_cb_t = { _, info, end, me in source(info, end, me, listed: true) }
    private static let sourceChanged: pa_source_info_cb_t = { _, info, end, me in source(info, end, me, listed: false) }

    private static func sink(_ info: UnsafePointer<pa_sink_info>?, _ end: Int32, _ me: UnsafeMutableRawPointer?, listed: Bool) {
        guard let me else { return }
        let sink = info?.pointee
        Unmanaged<PulseDeviceWatch>.fromOpaque(me).takeUnretainedValue().found(
            end == 0 ? sink.map { sink in
                AudioDeviceCatalog.Record(
                    direction: .playback, index: sink.index, name: text(sink.name), label: text(sink.description),
                    formats: [format(sink.sample_spec)])
            } : nil,
            listed: listed, end: end != 0)
    }

    private static func source(_ info: UnsafePointer<pa_source_info>?, _ end: Int32, _ me: UnsafeMutableRawPointer?, listed: Bool) {
        guard let me else { return }
        let source = info?.pointee
        Unmanaged<PulseDeviceWatch>.fromOpaque(me).takeUnretainedValue().found(
            end == 0 ? source.map { source in
                AudioDeviceCatalog.Record(
                    direction: .capture, index: source.index, name: text(source.name), label: text(source.description),
                    formats: [format(source.sample_spec)], isMonitor: source.monitor_of_sink != UInt32.max)
            } : nil,
            listed: listed, end: end != 0)
    }

    /// A device from a list (the first listing) or from a query after an event; `end` marks a
    /// list's end (or a device that was gone before its query was answered: nothing to report).
    private func found(_ record: AudioDeviceCatalog.Record?, listed: Bool, end: Bool) {
        if listed {
            if let record { listing?.records.append(record) }
            if end { closeListingPart() }
        } else if let record {
            emit([.present(record)])
        }
    }

    private func closeListingPart() {
        guard var gathering = listing else { return }
        gathering.open -= 1
        if gathering.open > 0 {
            listing = gathering
            return
        }
        listing = nil
        pending.append(.listing(gathering.records, defaultCapture: gathering.defaults.capture, defaultPlayback: gathering.defaults.playback))
        pending += deferred
        deferred = []
    }

    /// Queues `events` for ``take(waitingMicroseconds:)``, after the first listing if it is
    /// still being gathered (a device removed meanwhile is then removed after it is listed).
    private func emit(_ events: [AudioDeviceCatalog.Event]) {
        if listing != nil {
            deferred += events
        } else {
            pending += events
        }
    }

    private func release(_ operation: OpaquePointer?) {
        if let operation { pa_operation_unref(operation) }
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    private static func format(_ spec: pa_sample_spec) -> AudioFormat {
        let rate = Int(spec.rate)
        return AudioFormat(sampleRate: rate, channels: Int(spec.channels), framesPerBuffer: max(1, rate / 100))
    }
}
