import VoiceSupport

/// Turns a burst of rtnetlink events into one change: a link going down removes its addresses
/// and routes in a dozen messages, and DHCP renumbering adds before it deletes. The change is
/// due once events have been quiet for ``quietPeriod``, and never later than ``maximumDelay``
/// after the first (a link that flaps forever still gets looked at). When an address the last
/// report offered is gone, every call using it is deaf until it moves: the change is then due
/// after ``urgentQuietPeriod`` instead, long enough for the rest of one `ip`/DHCP step (a
/// renumbering adds, deletes and replaces the route within a millisecond or two) to arrive.
/// Pure: the monitor feeds it times from its clock; tests from a manual one.
package struct NetworkChangeCoalescer: Sendable {
    package var quietPeriod: MediaTime
    package var urgentQuietPeriod: MediaTime
    package var maximumDelay: MediaTime
    private var first: MediaTime?
    private var last: MediaTime?
    private var urgent = false

    package init(
        quietPeriod: MediaTime = .milliseconds(250), urgentQuietPeriod: MediaTime = .milliseconds(25),
        maximumDelay: MediaTime = .milliseconds(1_000)
    ) {
        self.quietPeriod = quietPeriod
        self.urgentQuietPeriod = urgentQuietPeriod
        self.maximumDelay = maximumDelay
    }

    /// Something changed at `now`; `urgent`: an address in use went away.
    package mutating func eventReceived(at now: MediaTime, urgent: Bool = false) {
        if first == nil { first = now }
        last = now
        if urgent { self.urgent = true }
    }

    /// When the pending change is due; nil when nothing is pending.
    package var deadline: MediaTime? {
        guard let first, let last else { return nil }
        return min(last + (urgent ? urgentQuietPeriod : quietPeriod), first + maximumDelay)
    }

    /// True (and the change taken) when a pending change is due at `now`.
    package mutating func takeDue(at now: MediaTime) -> Bool {
        guard let deadline, now >= deadline else { return false }
        first = nil
        last = nil
        urgent = false
        return true
    }
}
