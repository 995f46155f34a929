import VoiceSupport

/// Who paces one direction of a stream's audio, as a value the media thread feeds the device's
/// state and the time. The device paces while it works: capture sends what it delivered,
/// playout keeps its ring topped up. Without a device, while the device is interrupted, or
/// while it stalls (``DeviceActivityWatch``), the engine clock paces instead: silence is sent,
/// frames are played out and dropped, so the call's timeline goes on and no delay piles up.
struct AudioDirectionPacing: Sendable, Equatable {
    /// Why the engine clock paces.
    enum Reason: Sendable, Equatable {
        case noDevice
        case interrupted
        case stalled
    }

    /// Who paces now.
    enum Pacer: Sendable, Equatable {
        case device
        /// The engine clock, for `reason`: the next frame is due at `next`.
        case engineClock(Reason, next: MediaTime)
    }

    let hasDevice: Bool
    private(set) var pacer: Pacer
    /// The device's activity, watched for stalls.
    private(set) var watch = DeviceActivityWatch()

    init(hasDevice: Bool) {
        self.hasDevice = hasDevice
        pacer = .device
    }

    /// Takes the device's state at `now` (whether it is interrupted, and its count of buffers
    /// moved) and returns whether the engine clock just stopped standing in for an interrupted
    /// or stalled device: what the device delivered meanwhile is stale then.
    mutating func update(interrupted: Bool, deviceCount: @autoclosure () -> UInt64, now: MediaTime) -> Bool {
        let reason: Reason? =
            if !hasDevice { .noDevice } else if interrupted { .interrupted } else if watch.isStalled(count: deviceCount(), now: now) {
                .stalled
            } else { nil }
        switch (pacer, reason) {
        case (.device, nil):
            return false
        case (.engineClock(let was, _), let reason) where was == reason:
            return false
        case (.engineClock(let was, _), nil):
            pacer = .device
            return was != .noDevice
        case (.device, let reason?):
            pacer = .engineClock(reason, next: now)
            return false
        case (.engineClock(let was, _), let reason?):
            pacer = .engineClock(reason, next: now)
            return was != .noDevice
        }
    }

    /// When the engine clock paces, the time the next frame is due if it is due by `now`.
    func due(by now: MediaTime) -> MediaTime? {
        guard case .engineClock(_, let next) = pacer, now >= next else { return nil }
        return next
    }

    /// The frame due was handled: the next is due at `next`.
    mutating func advance(to next: MediaTime) {
        guard case .engineClock(let reason, _) = pacer else { return }
        pacer = .engineClock(reason, next: next)
    }

    /// Restarts the engine clock's frames from `now` (the frame length changed).
    mutating func restartClock(at now: MediaTime) { advance(to: now) }
}
