import NIOCore
import VoiceSupport
import VoiceSIP

extension SIPUserAgent {
    /// Registers our Contact with the registrar (the configured one, else the identity's domain)
    /// and keeps refreshing it; progress arrives as ``SIPUserAgentEvent/registration(_:)``.
    /// - Parameter credentials: Credentials for the registrar's challenges (e.g. a Bearer token),
    ///   tried before the configured ones; they replace those of an earlier `register`.
    package func register(credentials: [SIPAuthCredentials] = []) {
        jobs.execute {
            let all = credentials + self.configuration.credentials
            if self.registration == nil {
                var rng = SecureRandomNumberGenerator()
                var configuration = self.registrationConfiguration
                configuration.credentials = all
                self.registration = SIPRegistration(configuration: configuration, using: &rng)
            } else {
                self.registration?.setCredentials(all)
            }
            self.mutateRegistration { $0.register(now: $1) }
            self.startFlowLivenessIfNeeded()
        }
    }

    /// Removes our Contact from the registrar (Expires: 0).
    package func unregister() {
        jobs.execute { self.mutateRegistration { $0.unregister(now: $1) } }
    }

    var registrationConfiguration: SIPRegistration.Configuration {
        var aor = configuration.identity
        aor.parameters.set("tag", nil)
        let registrar = configuration.registrar ?? SIPURI(scheme: aor.uri.scheme == .sips ? .sips : .sip, host: aor.uri.host, port: aor.uri.port)
        var result = SIPRegistration.Configuration(
            registrar: registrar, addressOfRecord: aor, contact: contactURI, via: viaTemplate)
        result.expires = configuration.registrationExpires
        result.credentials = configuration.credentials
        result.userAgent = configuration.userAgent
        return result
    }

    private func mutateRegistration(_ body: (inout SIPRegistration, MediaTime) -> [SIPRegistrationAction]) {
        guard var registration else { return }
        let actions = body(&registration, now)
        self.registration = registration
        performRegistration(actions)
    }

    func performRegistration(_ actions: [SIPRegistrationAction]) {
        for action in actions {
            switch action {
            case .sendRequest(let request):
                sendRequest(request, owner: .registration)
            case .startTimer(let timer, let after):
                registrationTimers[timer]?.cancel()
                registrationTimers[timer] = eventLoop.scheduleTask(in: .nanoseconds(max(0, after.nanoseconds))) {
                    self.registrationTimers[timer] = nil
                    self.mutateRegistration { $0.timerFired(timer, now: $1) }
                }
            case .cancelTimer(let timer):
                registrationTimers[timer]?.cancel()
                registrationTimers[timer] = nil
            case .event(let event):
                webSocketRegistrationChanged(event)
                onEvent(.registration(event))
            }
        }
    }
}
