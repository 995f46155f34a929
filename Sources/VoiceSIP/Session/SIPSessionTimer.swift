import VoiceSupport

/// RFC 4028 session timers as one INVITE session keeps them: what our requests and 2xx
/// responses say, the interval and refresher agreed, and when the next refresh or the expiry
/// is due. A pure value; ``SIPInviteSession`` sends what it asks and runs its timers.
///
/// Policy (pjsip's and linphone's "optional" mode):
/// - Every INVITE, re-INVITE and UPDATE we send says `Supported: timer`, with the interval we
///   want (``Settings/sessionExpires``) and our ``Settings/minimumSE``. A 422 raises the
///   interval to the Min-SE it names and the request goes again, at most ``maximumRetries`` times.
/// - A request whose interval is below our Min-SE gets 422. Otherwise our 2xx carries the
///   interval asked for (or ours, when none was) and the refresher: the one asked for, else the
///   UAC when it supports timers, else us; with `Require: timer` when the UAC supports them.
/// - A 2xx without Session-Expires (a peer without timers) leaves us refreshing at our own
///   interval (§7.2): a refresh to a peer that is gone fails, and the call ends.
/// - The refresher refreshes at half the interval; either side ends the session with BYE when
///   no refresh came by the interval minus a third of it (at most 32 s), §10.
package struct SIPSessionTimer: Sendable, Equatable {
    package struct Settings: Sendable, Equatable {
        /// The interval we ask for, in seconds: pjsip's and linphone's 1800.
        package var sessionExpires: Int
        /// The smallest interval we accept, in seconds: RFC 4028's and pjsip's 90.
        package var minimumSE: Int

        package init(sessionExpires: Int = 1_800, minimumSE: Int = 90) {
            self.minimumSE = max(1, minimumSE)
            self.sessionExpires = max(self.minimumSE, sessionExpires)
        }
    }

    /// Whether a timer runs: its interval in seconds, and whether we send the refreshes.
    package enum Phase: Sendable, Equatable {
        case off
        case running(interval: Int, weRefresh: Bool)
    }

    /// 422s answered with a larger interval for one request, at most.
    package static let maximumRetries = 2

    package let settings: Settings
    /// The interval our next request asks for (a 422's Min-SE raises it).
    package private(set) var requested: Int
    /// The Min-SE our requests carry: ours, or the largest a 422 named.
    package private(set) var minimumSE: Int
    package private(set) var phase = Phase.off
    private var retries = 0

    package init(settings: Settings) {
        self.settings = settings
        requested = settings.sessionExpires
        minimumSE = settings.minimumSE
    }

    /// The header fields of a request that asks for the timer or refreshes it. In a refresh the
    /// refresher stays who it is (`uac` when we refresh: we send this request).
    package var requestHeaders: [(String, String)] {
        var value = SIPSessionExpires(seconds: requested)
        if case .running(let interval, let weRefresh) = phase {
            value = SIPSessionExpires(seconds: max(interval, requested), refresher: weRefresh ? .uac : .uas)
        }
        return [("Supported", "timer"), ("Session-Expires", value.description), ("Min-SE", String(minimumSE))]
    }

    /// A 422 to our request: true when it should go again with the larger interval its Min-SE
    /// names; false when there is none, it is not larger, or we retried enough.
    package mutating func tooSmall(_ response: SIPResponse) -> Bool {
        guard retries < Self.maximumRetries, let theirs = (try? response.headers.minimumSE()) ?? nil, theirs > requested else {
            return false
        }
        retries += 1
        requested = theirs
        minimumSE = max(minimumSE, theirs)
        return true
    }

    /// The 2xx to a request we sent (INVITE, re-INVITE, UPDATE): the timer as it now runs.
    @discardableResult
    package mutating func answered(by response: SIPResponse) -> Phase {
        retries = 0
        if let value = (try? response.headers.sessionExpires()) ?? nil {
            phase = .running(interval: max(value.seconds, 1), weRefresh: (value.refresher ?? .uac) == .uac)
        } else {
            phase = .running(interval: requested, weRefresh: true)
        }
        return phase
    }

    /// The Min-SE to refuse `request` with (422), or nil when its interval is acceptable.
    package func refusal(of request: SIPRequest) -> Int? {
        guard let asked = (try? request.headers.sessionExpires()) ?? nil, asked.seconds < settings.minimumSE else { return nil }
        return settings.minimumSE
    }

    /// The header fields of our 2xx to `request` (an INVITE, re-INVITE or UPDATE we accept) and
    /// the timer as it then runs. Call after ``refusal(of:)`` said nil.
    package mutating func answering(_ request: SIPRequest) -> [(String, String)] {
        let supports = request.headers.lists(optionTag: "timer", in: "supported") || request.headers.lists(optionTag: "timer", in: "require")
        let asked = (try? request.headers.sessionExpires()) ?? nil
        let theirMinimum = ((try? request.headers.minimumSE()) ?? nil) ?? 0
        let interval = max(asked?.seconds ?? settings.sessionExpires, settings.minimumSE, theirMinimum)
        // A UAC without timers cannot refresh: then only we can (§9).
        let refresher: SIPSessionExpires.Refresher = supports ? (asked?.refresher ?? .uac) : .uas
        phase = .running(interval: interval, weRefresh: refresher == .uas)
        requested = interval
        var headers = [("Session-Expires", SIPSessionExpires(seconds: interval, refresher: refresher).description)]
        if supports { headers.append(("Require", "timer")) }
        return headers
    }

    /// When we refresh next, from the last refresh: half the interval; nil when the peer refreshes.
    package var refreshDelay: MediaTime? {
        guard case .running(let interval, true) = phase else { return nil }
        return .milliseconds(Int64(interval) * 500)
    }

    /// When the session expires without a refresh, from the last one: the interval less a third
    /// of it, at most 32 s (§10).
    package var expiryDelay: MediaTime? {
        guard case .running(let interval, _) = phase else { return nil }
        return .milliseconds(Int64(interval - min(32, interval / 3)) * 1_000)
    }
}
