import VoiceSIP
import VoiceSupport
extension SIPUserAgent {
    /// For a new call (an INVITE outside a dialog) the incoming-call policy does not admit, the
    /// stateless answer to send instead (RFC 3261 §8.2.7): 403 for an untrusted source; 401 with
    /// a fresh challenge for a caller who has not proven the required credentials, whether it
    /// sent none, wrong ones or an unknown user name (a prober cannot tell which). Nil admits it.
    func admissionRefusal(_ request: SIPRequest, source: SIPTransportEndpoint) -> SIPResponse? {
        guard request.method == .invite, (try? request.headers.to().tag) == nil else { return nil }
        let policy = configuration.incomingCallPolicy
        if policy.restrictsSources, !isTrustedSource(source) {
            return SIPResponse(replyingTo: request, statusCode: 403)
        }
        guard let verifier = callerVerifier else { return nil }
        var stale = false
        if let authorization = request.headers.first("Authorization") {
            switch verifier.verify(authorization, method: request.method.rawValue, now: now) {
            case .authenticated: return nil
            case .stale: stale = true
            case .rejected: break
            }
        }
        var challenge = SIPResponse(replyingTo: request, statusCode: 401)
        challenge.headers.add("WWW-Authenticate", verifier.challenge(now: now, stale: stale))
        return challenge
    }

    /// 503 with `Retry-After` while the media engine is beyond its load limit
    /// (``SIPUserAgentLimits/maximumMediaLoad``): the answer to a new call or an OPTIONS outside
    /// a dialog (RFC 3261 §11.2: what an INVITE would get). Sent from the request's server
    /// transaction, so a retransmission of a call admitted before the load rose is not refused.
    func mediaOverloadRefusal(_ request: SIPRequest) -> SIPResponse? {
        guard let limit = configuration.limits.maximumMediaLoad, configuration.mediaLoad() >= limit else { return nil }
        overloadRejections += 1
        var refusal = SIPResponse(replyingTo: request, statusCode: 503)
        refusal.headers.add("Retry-After", "\(configuration.limits.retryAfterSeconds)")
        refusal.headers.add("Warning", "399 - \"media overloaded\"")
        return refusal
    }

    /// Whether `source` is one of the incoming-call policy's trusted peers (a proxy), by address
    /// or by the TLS connection's verified certificate names: it carries everybody's calls, so
    /// the per-source limits do not apply to it.
    func isTrustedSource(_ source: SIPTransportEndpoint) -> Bool {
        let policy = configuration.incomingCallPolicy
        if policy.trustedSources.contains(source.host) { return true }
        // A dual-stack listener sees an IPv4 peer as `::ffff:a.b.c.d`.
        if source.host.lowercased().hasPrefix("::ffff:"), policy.trustedSources.contains(String(source.host.dropFirst(7))) {
            return true
        }
        guard source.transport.isSecure, !policy.trustedTLSNames.isEmpty else { return false }
        let proven = transport.verifiedTLSNames(of: source)
        return policy.trustedTLSNames.contains { proven.contains($0.lowercased()) }
    }
}
