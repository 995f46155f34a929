import VoiceSupport

/// A client registration with one registrar (RFC 3261 §10): a pure state machine.
///
/// Each event returns the actions the driver performs: send a REGISTER through a new
/// non-INVITE client transaction, start or cancel a timer, report an event. Time is passed
/// in; timers are relative durations fed back through ``timerFired(_:now:)``.
///
/// Rules:
/// - Every REGISTER of one registration has the same Call-ID and From tag, a CSeq one higher
///   than the last, and a fresh Via branch (§10.2.4). At most one REGISTER is in flight (§10.2).
/// - The granted lifetime is the `expires` parameter of the response's Contact that matches
///   ours (§19.1.4 URI comparison), else the Expires header, else what we asked for. The
///   binding is refreshed after ``refreshDelay(granted:)`` and again after every success. A
///   2xx granting 0 s to a REGISTER that asked for more is treated as a failure.
/// - 401/407 is answered once through ``SIPAuthenticator`` (new CSeq); a second rejection ends
///   in ``SIPRegistrationState/failed(_:)`` with ``SIPFailure/authenticationFailed`` and no retry.
/// - 423 (Interval Too Brief) is retried with the Min-Expires value when it is above what we
///   asked, at most twice in a row.
/// - Any other 3xx–6xx, a transaction timeout or a transport error reports
///   ``SIPRegistrationEvent/failed(_:willRetryAfter:)`` and retries after the back-off of
///   ``Configuration/retryPolicy`` (longer when the response carries a Retry-After).
/// - ``unregister(now:)`` cancels the refresh and retry timers and sends a REGISTER with
///   `Expires: 0` and `;expires=0` on our Contact. When a REGISTER is already in flight it
///   waits for that one to complete and then sends the unregistering REGISTER (a challenge of
///   the one in flight is answered on the unregistering REGISTER itself). It skips the
///   REGISTER only when no binding can exist: none was ever granted and the one in flight got
///   a definite non-2xx answer.
///
/// Not thread-safe; confine it to one isolation domain.
package struct SIPRegistration: Sendable {
    /// The action type of this machine.
    package typealias Action = SIPRegistrationAction

    /// The configuration it was created with (credentials as last set).
    package private(set) var configuration: Configuration
    /// Where the registration stands.
    package private(set) var state: SIPRegistrationState = .idle
    /// The Call-ID of every REGISTER of this registration.
    package let callID: String
    /// The From tag of every REGISTER of this registration.
    package let fromTag: String
    /// The CSeq number of the last REGISTER sent (0 before the first).
    package private(set) var lastCSeq: UInt32 = 0
    /// The lifetime asked for in the next REGISTER: the configured one, raised by a 423.
    package private(set) var requestedExpires: UInt32

    private var authenticator: SIPAuthenticator
    private var random: Randomness
    private var inFlight: InFlight?
    /// What the layer above last asked for: a binding (register) or none (unregister).
    private var wantsBinding = false
    /// True once a binding was granted and not removed since.
    private var hasBinding = false
    private var consecutiveFailures = 0
    /// Contacts we moved away from that may still be bound: each REGISTER removes them
    /// (`;expires=0`) until one succeeds.
    private var staleContacts: [SIPURI] = []
    /// Our Contact moved while a REGISTER was in flight: refresh as soon as it completes.
    private var refreshAfterFlight = false

    private struct InFlight: Sendable {
        var cseq: UInt32
        /// The lifetime asked for; 0 for an unregistering REGISTER.
        var expires: UInt32
        /// 423 rounds in a row that led to this request.
        var intervalRetries: Int
        /// The old Contacts this request removes.
        var removedContacts: [SIPURI] = []
    }

    /// Most 423 rounds in a row before the attempt counts as failed.
    package static let maximumIntervalRetries = 2
    /// Longest Retry-After honoured, in seconds.
    package static let maximumRetryAfter: UInt32 = 86_400

    /// Creates a registration; nothing is sent until ``register(now:)``.
    ///
    /// - Parameters:
    ///   - configuration: what to register and how.
    ///   - rng: draws the Call-ID, the From tag and the seed of the branches and back-off jitter.
    ///   - cnonce: makes Digest client nonces; tests pass a fixed value.
    package init(
        configuration: Configuration, using rng: inout some RandomNumberGenerator,
        cnonce: @escaping @Sendable () -> String = { SIPAuthenticator.randomCNonce() }
    ) {
        self.configuration = configuration
        self.callID = SIPIdentifierGenerator.callID(using: &rng)
        self.fromTag = SIPIdentifierGenerator.tag(using: &rng)
        self.random = Randomness(seed: rng.next())
        self.requestedExpires = configuration.expires
        self.authenticator = SIPAuthenticator(credentials: configuration.credentials, cnonce: cnonce)
    }

    /// Replaces the credentials that answer the registrar's challenges (a renewed token), from
    /// the next challenge on.
    package mutating func setCredentials(_ credentials: [SIPAuthCredentials]) {
        configuration.credentials = credentials
        authenticator.setCredentials(credentials)
    }

    /// When a binding granted for `granted` seconds is refreshed: after
    /// `max(granted / 2, granted − refreshMargin)`, so short bindings refresh at half their
    /// lifetime and long ones `refreshMargin` before they run out.
    package func refreshDelay(granted: UInt32) -> MediaTime {
        let lifetime = Int64(granted) * 1_000_000_000
        let margin = max(configuration.refreshMargin.nanoseconds, 0)
        return MediaTime(nanoseconds: max(lifetime / 2, lifetime - margin))
    }

    // MARK: - Events

    /// Event: the layer above wants to be registered.
    ///
    /// From idle, unregistered or failed: sends a first REGISTER (resetting the back-off and
    /// the lifetime asked for). While waiting to retry: retries now. While registered: refreshes
    /// now (e.g. after a network change). While a REGISTER is in flight: nothing more is sent;
    /// during unregistration the REGISTER goes out once the unregistering one completes.
    package mutating func register(now: MediaTime) -> [Action] {
        wantsBinding = true
        switch state {
        case .registering, .refreshing, .unregistering:
            return []
        case .registered(let expires):
            state = .refreshing(expires: expires)
            return [.cancelTimer(.refresh)] + send()
        case .waitingToRetry:
            state = .registering
            return [.cancelTimer(.retry)] + send()
        case .idle, .unregistered, .failed:
            consecutiveFailures = 0
            requestedExpires = configuration.expires
            state = .registering
            return send()
        }
    }

    /// Event: our address changed (a network change). From now on REGISTER carries `contact`
    /// and `via`, and, until one succeeds, removes the binding of the Contact we moved away from
    /// in the same request (`;expires=0`, RFC 3261 §10.2.2), so the registrar stops sending
    /// calls to an address we no longer have. Registered or waiting to retry: the REGISTER goes
    /// now. In flight: right after it completes. Not registered: nothing is sent.
    package mutating func moveContact(_ contact: SIPURI, via: SIPVia, now: MediaTime) -> [Action] {
        guard !contact.isEquivalent(to: configuration.contact) else {
            configuration.via = via
            return []
        }
        if hasBinding || inFlight != nil { staleContacts.append(configuration.contact) }
        configuration.contact = contact
        configuration.via = via
        switch state {
        case .registered, .waitingToRetry:
            return register(now: now)
        case .registering, .refreshing:
            refreshAfterFlight = true
            return []
        case .unregistering:
            // The unregistering REGISTER in flight removes the old Contact; nothing is wanted.
            return []
        case .idle, .unregistered, .failed:
            return []
        }
    }

    /// Event: the layer above wants our binding removed. See the type's documentation for a
    /// REGISTER already in flight. With no binding to remove it reports `unregistered` at once.
    package mutating func unregister(now: MediaTime) -> [Action] {
        wantsBinding = false
        switch state {
        case .idle, .unregistered, .failed:
            state = .unregistered
            return [.event(.unregistered)]
        case .unregistering:
            return []
        case .registering, .refreshing:
            state = .unregistering
            return []
        case .registered:
            state = .unregistering
            return [.cancelTimer(.refresh)] + send()
        case .waitingToRetry:
            guard hasBinding else {
                state = .unregistered
                return [.cancelTimer(.retry), .event(.unregistered)]
            }
            state = .unregistering
            return [.cancelTimer(.retry)] + send()
        }
    }

    /// Event: a response to a REGISTER arrived. Provisional responses and responses that do not
    /// answer the REGISTER in flight (Call-ID, CSeq) are ignored.
    package mutating func receiveResponse(_ response: SIPResponse, now: MediaTime) -> [Action] {
        guard let flight = inFlight, (200...699).contains(response.statusCode),
            let cseq = try? response.headers.cseq(), cseq.method == .register, cseq.sequence == flight.cseq,
            (try? response.headers.callID()) == callID
        else { return [] }
        inFlight = nil
        switch response.statusCode {
        case 200..<300:
            authenticator.requestWasAccepted()
            return succeeded(response, flight: flight)
        case 401, 407:
            return challenged(response, flight: flight)
        case 423:
            authenticator.requestWasAccepted()
            if flight.expires > 0, flight.intervalRetries < Self.maximumIntervalRetries,
                let minimum = Self.decimalHeader("min-expires", in: response), minimum > flight.expires
            {
                requestedExpires = minimum
                return send(intervalRetries: flight.intervalRetries + 1)
            }
            return failed(.finalResponse(statusCode: 423), flight: flight, retryAfter: nil)
        default:
            authenticator.requestWasAccepted()
            let retryAfter = Self.decimalHeader("retry-after", in: response).map { min($0, Self.maximumRetryAfter) }
            return failed(.finalResponse(statusCode: response.statusCode), flight: flight, retryAfter: retryAfter)
        }
    }

    /// Event: the REGISTER in flight got no final response: its transaction timed out
    /// (``SIPFailure/transactionTimeout``) or the transport failed. Ignored with none in flight.
    package mutating func requestFailed(failure: SIPFailure, now: MediaTime) -> [Action] {
        guard let flight = inFlight else { return [] }
        inFlight = nil
        return failed(failure, flight: flight, retryAfter: nil)
    }

    /// Event: a timer this machine started has fired. Timers that do not apply to the current
    /// state are ignored.
    package mutating func timerFired(_ timer: SIPRegistrationTimer, now: MediaTime) -> [Action] {
        switch (timer, state) {
        case (.refresh, .registered(let expires)):
            state = .refreshing(expires: expires)
            return send()
        case (.retry, .waitingToRetry):
            state = .registering
            return send()
        default:
            return []
        }
    }

    // MARK: - Outcomes

    private mutating func succeeded(_ response: SIPResponse, flight: InFlight) -> [Action] {
        consecutiveFailures = 0
        staleContacts.removeAll { flight.removedContacts.contains($0) }
        if flight.expires == 0 {
            hasBinding = false
            if wantsBinding {
                state = .registering
                return [.event(.unregistered)] + send()
            }
            state = .unregistered
            return [.event(.unregistered)]
        }
        let granted = Self.grantedExpires(in: response, contact: configuration.contact, requested: flight.expires)
        guard granted > 0 else {
            hasBinding = false
            return failed(.finalResponse(statusCode: response.statusCode), flight: flight, retryAfter: nil)
        }
        hasBinding = true
        guard wantsBinding else {
            state = .unregistering
            return send()
        }
        if refreshAfterFlight {
            // The binding just granted is for the Contact we left: bind the new one now.
            refreshAfterFlight = false
            state = .refreshing(expires: granted)
            return [.event(.registered(expires: granted))] + send()
        }
        state = .registered(expires: granted)
        return [.startTimer(.refresh, after: refreshDelay(granted: granted)), .event(.registered(expires: granted))]
    }

    private mutating func challenged(_ response: SIPResponse, flight: InFlight) -> [Action] {
        guard let origin = SIPAuthChallengeOrigin(statusCode: response.statusCode) else { return [] }
        let challenges = origin == .server ? response.headers.wwwAuthenticate : response.headers.proxyAuthenticate
        do {
            let headers = try authenticator.answer(
                challenges: challenges, origin: origin, method: SIPMethod.register.rawValue,
                uri: configuration.registrar.description)
            return send(authorization: headers, intervalRetries: flight.intervalRetries)
        } catch {
            return failed(SIPFailure(error), flight: flight, retryAfter: nil)
        }
    }

    private mutating func failed(_ failure: SIPFailure, flight: InFlight, retryAfter: UInt32?) -> [Action] {
        let retryable = failure != .authenticationFailed && failure != .challengeUnanswerable
        if !wantsBinding {
            if flight.expires > 0, retryable {
                // The REGISTER that was in flight when unregistration was asked for failed.
                let definite: Bool
                if case .finalResponse = failure { definite = true } else { definite = false }
                if hasBinding || !definite {
                    state = .unregistering
                    return send()
                }
                state = .unregistered
                return [.event(.unregistered)]
            }
            state = .failed(failure)
            return [.event(.failed(failure, willRetryAfter: nil))]
        }
        guard retryable else {
            state = .failed(failure)
            return [.event(.failed(failure, willRetryAfter: nil))]
        }
        consecutiveFailures += 1
        var delay = configuration.retryPolicy.delay(afterFailures: consecutiveFailures, unit: random.unit())
        if let retryAfter {
            delay = MediaTime(nanoseconds: max(delay.nanoseconds, Int64(retryAfter) * 1_000_000_000))
        }
        state = .waitingToRetry(failure, retryAfter: delay)
        return [.startTimer(.retry, after: delay), .event(.failed(failure, willRetryAfter: delay))]
    }

    // MARK: - Requests

    /// Sends the next REGISTER: the configured lifetime while a binding is wanted, else 0.
    private mutating func send(authorization: [SIPAuthorizationHeader]? = nil, intervalRetries: Int = 0) -> [Action] {
        let expires = wantsBinding ? requestedExpires : 0
        lastCSeq = lastCSeq < UInt32(Int32.max) ? lastCSeq + 1 : 1
        let headers =
            authorization
            ?? authenticator.authorizationHeaders(
                method: SIPMethod.register.rawValue, uri: configuration.registrar.description)
        let branch = SIPIdentifierGenerator.branch(using: &random)
        inFlight = InFlight(cseq: lastCSeq, expires: expires, intervalRetries: intervalRetries, removedContacts: staleContacts)
        return [.sendRequest(makeRequest(expires: expires, cseq: lastCSeq, branch: branch, authorization: headers))]
    }

    private func makeRequest(
        expires: UInt32, cseq: UInt32, branch: String, authorization: [SIPAuthorizationHeader]
    ) -> SIPRequest {
        var headers = SIPHeaders()
        var via = configuration.via
        via.parameters.set("branch", branch)
        headers.add("Via", via.description)
        for route in configuration.routeSet { headers.add("Route", route.description) }
        headers.add("Max-Forwards", String(configuration.maxForwards))
        var from = configuration.addressOfRecord
        from.tag = fromTag
        headers.add("From", from.description)
        var to = configuration.addressOfRecord
        to.tag = nil
        headers.add("To", to.description)
        headers.add("Call-ID", callID)
        headers.add("CSeq", SIPCSeq(sequence: cseq, method: .register).description)
        var contact = SIPNameAddress(uri: configuration.contact)
        if expires == 0 { contact.parameters.set("expires", "0") }
        headers.add("Contact", contact.description)
        for stale in staleContacts {
            var removed = SIPNameAddress(uri: stale)
            removed.parameters.set("expires", "0")
            headers.add("Contact", removed.description)
        }
        headers.add("Expires", String(expires))
        for header in authorization { headers.add(header.name, header.value) }
        if let userAgent = configuration.userAgent { headers.add("User-Agent", userAgent) }
        headers.add("Content-Length", "0")
        return SIPRequest(method: .register, uri: configuration.registrar, headers: headers)
    }

    // MARK: - Response fields

    /// The lifetime a 2xx grants our Contact (see the type's documentation).
    static func grantedExpires(in response: SIPResponse, contact: SIPURI, requested: UInt32) -> UInt32 {
        if case .addresses(let bindings)? = try? response.headers.contact(),
            let ours = bindings.first(where: { $0.uri.isEquivalent(to: contact) }), let expires = ours.expires
        {
            return expires
        }
        return decimalHeader("expires", in: response) ?? requested
    }

    /// A header whose value starts with delta-seconds (Expires, Min-Expires, Retry-After);
    /// nil when absent, repeated or malformed.
    static func decimalHeader(_ name: String, in response: SIPResponse) -> UInt32? {
        guard let value = try? response.headers.single(name) else { return nil }
        let digits = value.utf8.prefix(while: SIPGrammar.isDigit)
        return SIPGrammar.decimal(ArraySlice(digits), max: Int(UInt32.max)).map(UInt32.init)
    }
}
