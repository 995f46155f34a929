import VoiceSupport

extension SIPRegistration {
    /// What to register and how.
    package struct Configuration: Sendable {
        /// The Request-URI, e.g. `sip:example.com`.
        package var registrar: SIPURI
        /// The address of record: the To and From address (From gets our tag).
        package var addressOfRecord: SIPNameAddress
        /// Where we receive requests; the binding registered for the address of record.
        package var contact: SIPURI
        /// Template for the top Via; each request gets it with a fresh branch.
        package var via: SIPVia
        /// The binding lifetime asked for, in seconds. Default 3600.
        package var expires: UInt32
        /// Credentials for 401/407 challenges, tried in order.
        package var credentials: [SIPAuthCredentials]
        /// The User-Agent header value, if any.
        package var userAgent: String?
        /// Route header values put on every REGISTER (a preloaded outbound proxy), in order.
        package var routeSet: [SIPNameAddress]
        /// Max-Forwards of every REGISTER. Default 70.
        package var maxForwards: Int
        /// How long before expiry a binding is refreshed; see ``SIPRegistration/refreshDelay(granted:)``.
        /// Default 60 s.
        package var refreshMargin: MediaTime
        /// Back-off after failures.
        package var retryPolicy: RetryPolicy

        /// Creates a configuration; the optional parameters default to the values documented on
        /// each property.
        package init(
            registrar: SIPURI, addressOfRecord: SIPNameAddress, contact: SIPURI, via: SIPVia,
            expires: UInt32 = 3600, credentials: [SIPAuthCredentials] = [], userAgent: String? = nil,
            routeSet: [SIPNameAddress] = [], maxForwards: Int = 70, refreshMargin: MediaTime = .seconds(60),
            retryPolicy: RetryPolicy = RetryPolicy()
        ) {
            self.registrar = registrar
            self.addressOfRecord = addressOfRecord
            self.contact = contact
            self.via = via
            self.expires = expires
            self.credentials = credentials
            self.userAgent = userAgent
            self.routeSet = routeSet
            self.maxForwards = maxForwards
            self.refreshMargin = refreshMargin
            self.retryPolicy = retryPolicy
        }
    }

    /// Exponential back-off with jitter after consecutive failures (the shape of RFC 5626 §4.5).
    ///
    /// After the n-th consecutive failure (n from 1) the ceiling is
    /// `min(initialDelay × 2^(n−1), maximumDelay)`, and the delay is drawn uniformly between
    /// `(1 − jitterFraction) × ceiling` and the ceiling. A success resets the count.
    package struct RetryPolicy: Hashable, Sendable {
        /// The ceiling after the first failure. Default 30 s.
        package var initialDelay: MediaTime
        /// The largest ceiling. Default 30 min.
        package var maximumDelay: MediaTime
        /// How much of the ceiling may be taken off at random, 0 to 1. Default 0.5.
        package var jitterFraction: Double

        /// Creates a policy; parameters default to the values documented on each property.
        package init(initialDelay: MediaTime = .seconds(30), maximumDelay: MediaTime = .seconds(1800), jitterFraction: Double = 0.5) {
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
            self.jitterFraction = jitterFraction
        }

        /// The ceiling after `failures` consecutive failures (at least 1).
        package func ceiling(afterFailures failures: Int) -> MediaTime {
            let maximum = max(maximumDelay.nanoseconds, 0)
            var delay = max(initialDelay.nanoseconds, 0)
            var doublings = max(failures, 1) - 1
            while doublings > 0, delay < maximum {
                delay = delay > maximum / 2 ? maximum : delay * 2
                doublings -= 1
            }
            return MediaTime(nanoseconds: min(delay, maximum))
        }

        /// The delay after `failures` consecutive failures, with `unit` (0 ≤ unit < 1) choosing
        /// where between the jittered floor and the ceiling it falls.
        package func delay(afterFailures failures: Int, unit: Double) -> MediaTime {
            let ceiling = ceiling(afterFailures: failures)
            let jitter = min(max(jitterFraction, 0), 1)
            let u = min(max(unit, 0), 1)
            let taken = Double(ceiling.nanoseconds) * jitter * (1 - u)
            return MediaTime(nanoseconds: ceiling.nanoseconds - Int64(taken))
        }
    }
}
