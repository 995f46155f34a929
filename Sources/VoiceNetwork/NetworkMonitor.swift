#if canImport(Glibc)
    import Glibc
#endif
import CVoiceSys
import Dispatch
import Foundation
import Logging
import Synchronization
import VoiceAddress
import VoiceSupport

/// Watches the host's links, addresses and default routes through rtnetlink and reports the
/// addresses a call could use whenever they change.
///
/// Event-driven: one thread blocks on the netlink socket (and on a wake-up descriptor); there
/// is no polling loop. At start, and again whenever the kernel reports that it dropped events
/// (`ENOBUFS`, `NLMSG_OVERRUN`) or a datagram does not decode, it dumps the links, addresses
/// and routes. Bursts are coalesced (``NetworkChangeCoalescer``), and `onChange` runs only when
/// the ranked candidates differ from the last ones reported, on the monitor's thread.
package final class NetworkMonitor: Sendable {
    package typealias ChangeHandler = @Sendable ([NetworkCandidate]) -> Void

    /// RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE.
    static let groups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400

    private let descriptor: Int32
    private let wake: Int32
    private let control: NetworkMonitorControl

    /// Starts watching and waits (up to 2 s) for the first complete dump, so ``candidates`` is
    /// meaningful on return. Do not call it on an event loop.
    /// - Parameters:
    ///   - classifier: Decides each interface's type (with the app's overrides).
    ///   - namespacePath: Watch this network namespace (`/run/netns/NAME`) instead of the process's.
    ///   - coalescer: How bursts are merged.
    ///   - onAddressesChanged: The candidates, most preferred first, as soon as a read of
    ///     events changes their addresses, before the burst is coalesced (for media that can act at once:
    ///     ICE checks from a new address); after the first report, on the monitor's thread.
    ///   - onChange: The new candidates, most preferred first, after each change that alters them.
    package init(
        classifier: NetworkInterfaceClassifier = NetworkInterfaceClassifier(), namespacePath: String? = nil,
        coalescer: NetworkChangeCoalescer = NetworkChangeCoalescer(), logger: Logger = Logger(label: "voice.network"),
        onAddressesChanged: ChangeHandler? = nil, onChange: @escaping ChangeHandler
    ) throws(NetworkMonitorError) {
        var error: Int32 = 0
        let fd =
            namespacePath.map { voice_open_route_socket($0, Self.groups, &error) }
            ?? voice_open_route_socket(nil, Self.groups, &error)
        guard fd >= 0 else { throw NetworkMonitorError("cannot open a netlink socket: \(String(cString: strerror(error)))") }
        let wake = CVoiceSys.eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wake >= 0 else {
            close(fd)
            throw NetworkMonitorError("cannot create an eventfd: \(String(cString: strerror(errno)))")
        }
        self.descriptor = fd
        self.wake = wake
        let control = NetworkMonitorControl(classifier: classifier)
        self.control = control
        let synced = DispatchSemaphore(value: 0)
        let loop = NetworkMonitorLoop(
            descriptor: fd, wake: wake, coalescer: coalescer, logger: logger, control: control,
            onSynced: { synced.signal() }, onAddressesChanged: onAddressesChanged, onChange: onChange)
        let thread = Thread {
            control.thread.withLock { $0 = pthread_self() }
            loop.run()
            // The thread owns the descriptors: it closes them, under the lock `poke` takes.
            control.descriptorsOpen.withLock { open in
                close(fd)
                close(wake)
                open = false
            }
            control.finished.signal()
        }
        thread.name = "voice-network"
        thread.start()
        if synced.wait(timeout: .now() + 2) == .timedOut {
            logger.warning("network monitor: the first dump took over 2 s; candidates will follow")
        }
    }

    deinit { stop() }

    /// The addresses a call could use, most preferred first (as last reported).
    package var candidates: [NetworkCandidate] { control.shared.withLock { $0.candidates } }

    /// Replaces the app's interface-type overrides and re-ranks at once.
    package func setOverrides(_ overrides: [String: NetworkInterfaceType]) {
        control.shared.withLock {
            $0.classifier.overrides = overrides
            $0.reclassify = true
        }
        poke()
    }

    /// Stops the thread, which closes the socket; idempotent. Waits for the thread unless called
    /// on it (from `onChange`, say, when the handler drops the last reference to an owner).
    package func stop() {
        guard !control.stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        poke()
        let onOwnThread = control.thread.withLock { thread in thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        if !onOwnThread { control.finished.wait() }
    }

    /// Wakes the thread, unless it has closed its descriptors (a reused number is not ours).
    private func poke() {
        control.descriptorsOpen.withLock { open in
            guard open else { return }
            var one: UInt64 = 1
            _ = write(wake, &one, 8)
        }
    }
}

/// What the monitor and its thread share.
final class NetworkMonitorControl: Sendable {
    struct Shared {
        var candidates: [NetworkCandidate] = []
        var classifier: NetworkInterfaceClassifier
        /// The overrides changed: rank again without waiting for an event.
        var reclassify = false
    }

    let shared: Locked<Shared>
    let stopped = Atomic<Bool>(false)
    let finished = DispatchSemaphore(value: 0)
    /// The monitor's thread, once it runs; and whether its descriptors are still open.
    let thread = Locked<pthread_t?>(nil)
    let descriptorsOpen = Locked(true)

    init(classifier: NetworkInterfaceClassifier) { shared = Locked(Shared(classifier: classifier)) }
}

/// The monitor thread's own state: only that thread touches it.
private final class NetworkMonitorLoop: @unchecked Sendable {
    let descriptor: Int32
    let wake: Int32
    var coalescer: NetworkChangeCoalescer
    let logger: Logger
    let control: NetworkMonitorControl
    let onSynced: @Sendable () -> Void
    let onChange: NetworkMonitor.ChangeHandler
    let onAddressesChanged: NetworkMonitor.ChangeHandler?
    let clock = MonotonicMediaClock()
    var state = NetworkState()
    /// Dumps still to request, and the sequence number of the one in flight.
    var dumpsToDo: [NetlinkDumpRequest] = []
    var dumpInFlight: UInt32?
    var nextSequence: UInt32 = 1
    var reported: [NetworkCandidate]?
    /// The addresses last given to `onAddressesChanged` (or reported), and whether events read
    /// since may have changed them.
    var addressesReported: [IPAddress]?
    var addressesMayHaveChanged = false

    init(
        descriptor: Int32, wake: Int32, coalescer: NetworkChangeCoalescer, logger: Logger, control: NetworkMonitorControl,
        onSynced: @escaping @Sendable () -> Void, onAddressesChanged: NetworkMonitor.ChangeHandler?,
        onChange: @escaping NetworkMonitor.ChangeHandler
    ) {
        self.descriptor = descriptor
        self.wake = wake
        self.coalescer = coalescer
        self.logger = logger
        self.control = control
        self.onSynced = onSynced
        self.onChange = onChange
        self.onAddressesChanged = onAddressesChanged
    }

    func run() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        startDump()
        while !control.stopped.load(ordering: .acquiring) {
            let timeout: Int32 =
                coalescer.deadline.map { deadline in
                    Int32(clamping: max(0, (deadline - clock.now()).nanoseconds + 999_999) / 1_000_000)
                } ?? -1
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = poll(&fds, 2, timeout)
            if ready < 0 && errno != EINTR { break }
            if fds[1].revents != 0 {
                var scratch: UInt64 = 0
                _ = read(wake, &scratch, 8)
                if control.shared.withLock({ $0.reclassify }) {
                    control.shared.withLock { $0.reclassify = false }
                    report()
                }
            }
            if fds[0].revents != 0 {
                readAll(&buffer)
                if addressesMayHaveChanged { reportAddresses() }
            }
            if coalescer.takeDue(at: clock.now()) { report() }
        }
    }

    /// Reads every pending datagram.
    private func readAll(_ buffer: inout [UInt8]) {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 {
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: return
                case ENOBUFS:
                    logger.notice("network monitor: the kernel dropped events; reading the state again")
                    startDump()
                    continue
                default:
                    logger.warning("network monitor: recv failed: \(String(cString: strerror(errno)))")
                    return
                }
            }
            let events: [NetlinkEvent]
            do {
                events = try buffer.withUnsafeBytes { raw throws(NetlinkParseError) in
                    try NetlinkMessageParser.parse(UnsafeRawBufferPointer(rebasing: raw[..<count]))
                }
            } catch {
                logger.warning("network monitor: \(error); reading the state again")
                startDump()
                continue
            }
            for event in events { handle(event) }
        }
    }

    private func handle(_ event: NetlinkEvent) {
        switch event {
        case .done(let sequence), .error(let sequence, _):
            guard sequence == dumpInFlight else { return }
            if case .error(_, let code) = event, code != 0 {
                logger.warning("network monitor: dump refused: \(String(cString: strerror(-code)))")
            }
            dumpInFlight = nil
            requestNextDump()
        case .overrun:
            startDump()
        default:
            if state.apply(event), dumpInFlight == nil {
                coalescer.eventReceived(at: clock.now(), urgent: reportedAddressVanished())
                addressesMayHaveChanged = true
            }
        }
    }

    /// Whether an address of the last report is no longer usable: calls on it hear nothing.
    private func reportedAddressVanished() -> Bool {
        guard let reported, !reported.isEmpty else { return false }
        let classifier = control.shared.withLock { $0.classifier }
        let usable = Set(state.candidates(classifier: classifier).map(\.address))
        return reported.contains { !usable.contains($0.address) }
    }

    /// Forgets the state and dumps links, then addresses, then routes (one dump at a time:
    /// the kernel refuses a second on the same socket).
    private func startDump() {
        state = NetworkState()
        dumpsToDo = NetlinkDumpRequest.allCases
        dumpInFlight = nil
        requestNextDump()
    }

    private func requestNextDump() {
        guard !dumpsToDo.isEmpty else {
            // A complete picture: report it now, not after the quiet period.
            report()
            onSynced()
            return
        }
        let request = dumpsToDo.removeFirst()
        let sequence = nextSequence
        nextSequence &+= 1
        let bytes = request.bytes(sequence: sequence)
        let sent = bytes.withUnsafeBytes { voice_route_socket_send(descriptor, $0.baseAddress, $0.count) }
        if sent < 0 {
            logger.warning("network monitor: cannot request a dump: \(String(cString: strerror(errno)))")
            dumpsToDo = []
            report()
            onSynced()
            return
        }
        dumpInFlight = sequence
    }

    /// Ranks the candidates and reports them if they differ from the last report.
    private func report() {
        let candidates = control.shared.withLock { shared in
            let ranked = state.candidates(classifier: shared.classifier)
            shared.candidates = ranked
            return ranked
        }
        guard candidates != reported else { return }
        reported = candidates
        addressesReported = candidates.map(\.address)
        onChange(candidates)
    }

    /// Gives `onAddressesChanged` the candidates if the events just read changed their addresses
    /// (only once a first report set the baseline).
    private func reportAddresses() {
        addressesMayHaveChanged = false
        guard let onAddressesChanged, addressesReported != nil else { return }
        let classifier = control.shared.withLock { $0.classifier }
        let candidates = state.candidates(classifier: classifier)
        let addresses = candidates.map(\.address)
        guard addresses != addressesReported else { return }
        addressesReported = addresses
        onAddressesChanged(candidates)
    }
}
