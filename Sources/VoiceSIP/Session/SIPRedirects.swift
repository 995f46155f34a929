/// Where a redirected INVITE goes next (RFC 3261 §8.1.3.4): the Contacts of each 3xx, best `q`
/// first (an absent `q` counts as 1; equal ones keep their order), tried one at a time. The
/// Contacts of a later 3xx go before those still waiting from an earlier one: the target that
/// redirected knows better. Each address is tried once (one seen again is a loop), at most
/// ``maximumRedirects`` 3xx are followed, and at most ``maximumWaiting`` addresses wait.
package struct SIPRedirects: Sendable, Equatable {
    /// How many 3xx responses one call follows.
    package static let maximumRedirects = 5
    /// How many Contacts wait to be tried at most (a hostile 3xx may list thousands).
    package static let maximumWaiting = 16

    /// Why following stopped.
    package enum Failure: Error, Sendable, Hashable {
        /// Every Contact of the 3xx was one already tried (or the original target).
        case loop(statusCode: Int)
        /// More than ``maximumRedirects`` redirects.
        case tooManyRedirects(statusCode: Int)
        /// The 3xx named no Contact we can call (none, `*`, malformed, or not `sip:`/`sips:`).
        case noUsableContact(statusCode: Int)
    }

    /// 3xx responses followed so far.
    package private(set) var followed = 0
    private var tried: [SIPURI]
    private var waiting: [SIPURI] = []

    /// Starts from the INVITE's first target, which counts as tried.
    package init(original: SIPURI) {
        tried = [original]
    }

    /// A 3xx with `status` arrived: its new Contacts queue up ahead of those waiting; the next
    /// target to try comes back, or why there is none.
    package mutating func redirect(status: Int, contacts: SIPContact?) -> Result<SIPURI, Failure> {
        guard followed < Self.maximumRedirects else { return .failure(.tooManyRedirects(statusCode: status)) }
        followed += 1
        guard case .addresses(let addresses) = contacts else { return next(orFail: .noUsableContact(statusCode: status)) }
        let usable = addresses.enumerated()
            .filter { $0.element.uri.scheme == .sip || $0.element.uri.scheme == .sips }
            .sorted { ($0.element.qValueThousandths ?? 1_000, -$0.offset) > ($1.element.qValueThousandths ?? 1_000, -$1.offset) }
            .map { Self.target($0.element.uri) }
        guard !usable.isEmpty else { return next(orFail: .noUsableContact(statusCode: status)) }
        let fresh = usable.filter { uri in !tried.contains(where: { Self.same($0, uri) }) && !waiting.contains(where: { Self.same($0, uri) }) }
        guard !fresh.isEmpty else { return next(orFail: .loop(statusCode: status)) }
        waiting = Array((fresh + waiting).prefix(Self.maximumWaiting))
        return next(orFail: .loop(statusCode: status))
    }

    /// The next waiting target after one failed; nil when none is left.
    package mutating func next() -> SIPURI? {
        guard !waiting.isEmpty else { return nil }
        let target = waiting.removeFirst()
        tried.append(target)
        return target
    }

    private mutating func next(orFail failure: Failure) -> Result<SIPURI, Failure> {
        next().map { .success($0) } ?? .failure(failure)
    }

    /// A Contact as a Request-URI: without the parameters and headers a Request-URI may not
    /// carry (RFC 3261 §19.1.1: `method`, `ttl`, `maddr` stay; headers are not copied here).
    private static func target(_ uri: SIPURI) -> SIPURI {
        var target = uri
        target.headers = []
        return target
    }

    /// Two targets are the same when their scheme, user, host and port are (host case-blind).
    private static func same(_ a: SIPURI, _ b: SIPURI) -> Bool {
        a.scheme == b.scheme && a.user == b.user && a.host.lowercased() == b.host.lowercased() && a.port == b.port
    }
}
