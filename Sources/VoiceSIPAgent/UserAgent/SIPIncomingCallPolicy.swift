import VoiceSIP
import VoiceSupport
/// Who may start a call with us (an INVITE outside a dialog).
///
/// By default anybody who reaches the port may. A server behind a SIP proxy or registrar
/// should accept calls only from it, by address (``trustedSources``) or by the name its TLS
/// certificate proves (``trustedTLSNames``); one without a proxy can ask callers for a password
/// (``requiredCredentials``: a Digest challenge, 401). A refused or challenged
/// INVITE is answered at once without keeping any state, and the answer does not depend on the
/// user called, so a prober learns nothing about which users exist.
public struct SIPIncomingCallPolicy: Sendable, Hashable {
    /// IP addresses new calls may come from (the proxy's, the registrar's).
    /// When this or ``trustedTLSNames`` is set, INVITEs from anybody else are answered 403.
    public var trustedSources: [String]
    /// Host names a TLS peer may prove to be trusted: a new call that arrives over a TLS
    /// connection whose peer's certificate verified against the trust roots and names one of
    /// these (a DNS subject alternative name) is admitted. That covers the connection we opened
    /// to our proxy (its server certificate) and a proxy that connects to our TLS listener with
    /// a client certificate (the server TLS configuration must then verify client certificates,
    /// e.g. `certificateVerification = .optionalVerification` with the proxy's CA as trust root).
    /// Compared without regard to case.
    public var trustedTLSNames: [String]
    /// Credentials a caller must prove with Digest (MD5, qop=auth); empty: no challenge.
    public var requiredCredentials: [SIPAuthCredentials]
    /// The realm of the challenges.
    public var realm: String

    /// Creates a policy; the default lets anybody call.
    public init(
        trustedSources: [String] = [], trustedTLSNames: [String] = [], requiredCredentials: [SIPAuthCredentials] = [],
        realm: String = "voice"
    ) {
        self.trustedSources = trustedSources
        self.trustedTLSNames = trustedTLSNames
        self.requiredCredentials = requiredCredentials
        self.realm = realm
    }

    /// Whether only trusted peers may start calls.
    var restrictsSources: Bool { !trustedSources.isEmpty || !trustedTLSNames.isEmpty }

    /// Anybody who reaches the port may call.
    public static let anyone = SIPIncomingCallPolicy()
}
