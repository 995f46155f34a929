/// How many earlier frames an Opus stream repeats in RFC 2198 redundancy (RED), as a value fed
/// the peer's loss reports.
///
/// - ``Mode/off``: never (the default until measurements say when RED beats Opus FEC).
/// - ``Mode/always(depth:)``: a fixed depth, 1 or 2.
/// - ``Mode/adaptive``: off on a clean link; one frame back once a report shows 2 % loss or
///   more; two frames back at 8 % or more, where losses of consecutive packets become likely
///   (RTCP's fraction lost says nothing of bursts, so this is a proxy). It steps down one
///   level after three reports in a row under the level's floor (1 % and 4 %).
package struct REDSendPolicy: Sendable, Equatable {
    package enum Mode: Sendable, Equatable {
        case off
        case always(depth: Int)
        case adaptive
    }

    package static let maximumDepth = 2
    static let onThreshold = 0.02
    static let deepThreshold = 0.08
    static let offFloor = 0.01
    static let shallowFloor = 0.04
    static let reportsToStepDown = 3

    package let mode: Mode
    /// Frames repeated in each packet now (0: plain packets).
    package private(set) var depth: Int
    private var quietReports = 0

    package init(mode: Mode) {
        self.mode = mode
        switch mode {
        case .off, .adaptive: depth = 0
        case .always(let d): depth = min(Self.maximumDepth, max(0, d))
        }
    }

    /// The peer reported `fractionLost` (0…1) of our packets over its last interval.
    package mutating func reportReceived(fractionLost: Double) {
        guard case .adaptive = mode else { return }
        let wanted = fractionLost >= Self.deepThreshold ? 2 : fractionLost >= Self.onThreshold ? 1 : 0
        if wanted > depth {
            depth = wanted
            quietReports = 0
            return
        }
        let floor = depth == 2 ? Self.shallowFloor : Self.offFloor
        guard depth > 0, fractionLost < floor else {
            quietReports = 0
            return
        }
        quietReports += 1
        if quietReports >= Self.reportsToStepDown {
            depth -= 1
            quietReports = 0
        }
    }
}
