/// Why the network monitor could not start.
package struct NetworkMonitorError: Error, Hashable, Sendable, CustomStringConvertible {
    package let reason: String
    package init(_ reason: String) { self.reason = reason }
    package var description: String { "network monitor: \(reason)" }
}
