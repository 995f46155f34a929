/// The severity an ``InsightsEvent`` is published at.
package enum InsightsEventLevel: String, Hashable, Sendable, CaseIterable, Comparable {
    /// Transport and negotiation detail (peer-connection, ICE and signaling states).
    case debug
    /// Normal call lifecycle (connection events, codec, feedback, warnings cleared).
    case info
    /// Degraded quality (warnings raised).
    case warning
    /// Failures (`connection`/`error`, failed transport states).
    case error

    private var rank: Int {
        switch self {
        case .debug: return 0
        case .info: return 1
        case .warning: return 2
        case .error: return 3
        }
    }

    /// Orders levels by severity.
    package static func < (lhs: InsightsEventLevel, rhs: InsightsEventLevel) -> Bool { lhs.rank < rhs.rank }
}
