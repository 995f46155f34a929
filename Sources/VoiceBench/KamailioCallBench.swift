import Dispatch
import Logging
import VoiceCore
import VoiceSIPAgent
import VoiceTestKit

/// Two clients in this process with Kamailio between them (its dispatcher configuration, the
/// answering client as the one destination, which trusts the proxy): one places calls to
/// `service`, the other accepts each at once with `answerer`; both with `security`. Shut down
/// with ``stop()``.
struct KamailioCallBench {
    let caller: VoiceClient
    let callee: VoiceClient
    let kamailio: KamailioPeer

    init(limits: SIPUserAgentLimits, logLevel: Logger.Level, answerer: RateAnswerer, security: MediaSecurity = .automatic) throws {
        var quiet = Logger(label: "voice-bench")
        quiet.logLevel = logLevel
        var calleeConfiguration = VoiceClientConfiguration(
            identity: "service", domain: "127.0.0.1", registers: false, logger: quiet)
        calleeConfiguration.limits = limits
        calleeConfiguration.incomingCallPolicy = SIPIncomingCallPolicy(trustedSources: ["127.0.0.1"])
        calleeConfiguration.mediaSecurity = security
        callee = try VoiceClient(configuration: calleeConfiguration)
        var kamailioConfiguration = KamailioConfiguration()
        kamailioConfiguration.dispatcherDestinations = ["sip:127.0.0.1:\(callee.localEndpoint.port)"]
        do {
            kamailio = try KamailioPeer(templatePath: PeerTemplates.kamailioDispatcher, configuration: kamailioConfiguration)
            var callerConfiguration = VoiceClientConfiguration(
                identity: "caller", domain: kamailio.configuration.realm, outboundProxy: try SIPServerAddress(kamailio.uri),
                registers: false, logger: quiet)
            callerConfiguration.limits = limits
            callerConfiguration.mediaSecurity = security
            caller = try VoiceClient(configuration: callerConfiguration)
        } catch {
            callee.shutdown()
            throw error
        }
        let registered = DispatchSemaphore(value: 0)
        callee.register(accessToken: BenchTokens.token("service"), notificationDelegate: answerer, delegateQueue: answerer.queue) { _ in
            registered.signal()
        }
        _ = registered.wait(timeout: .now() + 5)
    }

    func stop() {
        caller.shutdown()
        kamailio.stop()
        callee.shutdown()
    }
}
