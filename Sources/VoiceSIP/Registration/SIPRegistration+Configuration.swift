import VoiceSupport

extension SIPRegistration {
    /// What to register and how.
    public struct Configuration: Sendable {
        /// The Request-URI, e.g. `sip:example.com`.
        public var registrar: SIPURI
        /// The address of record: the To and From address (From gets our tag).
        public var addressOfRecord: SIPNameAddress
        /// Where we receive requests; the binding registered for the address of record.
        public var contact: SIPURI
        /// Template for the top Via; each request gets it with a fresh branch.
        public var via: SIPVia
        /// The binding lifetime asked for, in seconds. Default 3600.
        public var expires: UInt32
        /// Credentials for 401/407 challenges, tried in order.
        public var credentials: [SIPAuthCredentials]
        /// The User-Agent header value, if any.
        public var userAgent: String?
        /// Route header values put on every REGISTER (a preloaded outbound proxy), in order.
        public var routeSet: [SIPNameAddress]
        /// Max-Forwards of every REGISTER. Default 70.
        public var maxForwards: Int
        /// How long before expiry a binding is refreshed; see ``SIPRegistration/refreshDelay(granted:)``.
        /// Default 60 s.
        public var refreshMargin: MediaTime
        /// Back-off after failures.
        public var retryPolicy: RetryPolicy

        /// Creates a configuration; the optional parameters default to the values documented on
        /// each property.
        public init(
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
    public struct RetryPolicy: Hashable, Sendable {
        /// The ceiling after the first failure. Default 30 s.
        public var initialDelay: MediaTime
        /// The largest ceiling. Default 30 min.
        public var maximumDelay: MediaTime
        /// How much of the ceiling may be taken off at random, 0 to 1. Default 0.5.
        public var jitterFraction: Double

        /// Creates a policy; parameters default to the values documented on each property.
        public init(initialDelay: MediaTime = .seconds(30), maximumDelay: MediaTime = .seconds(1800), jitterFraction: Double = 0.5) {
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
            self.jitterFraction = jitterFraction
        }

        /// The ceiling after `failures` consecutive failures (at least 1).
        public func ceiling(afterFailures failures: Int) -> MediaTime {
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
        public func delay(afterFailures failures: Int, unit: Double) -> MediaTime {
            let ceiling = ceiling(afterFailures: failures)
            let jitter = min(max(jitterFraction, 0), 1)
            let u = min(max(unit, 0), 1)
            let taken = Double(ceiling.nanoseconds) * jitter * (1 - u)
            return MediaTime(nanoseconds: ceiling.nanoseconds - Int64(taken))
        }
    }
}
