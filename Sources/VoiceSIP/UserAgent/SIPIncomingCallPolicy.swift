/// Who may start a call with us (an INVITE outside a dialog).
///
/// By default anybody who reaches the port may. A server behind a SIP proxy or registrar
/// should accept calls only from it (``trustedSources``); one without a proxy can ask callers
/// for a password (``requiredCredentials``: a Digest challenge, 401). A refused or challenged
/// INVITE is answered at once without keeping any state, and the answer does not depend on the
/// user called, so a prober learns nothing about which users exist.
public struct SIPIncomingCallPolicy: Sendable, Hashable {
    /// IP addresses new calls may come from (the proxy's, the registrar's); empty: any.
    /// INVITEs from anywhere else are answered 403.
    public var trustedSources: [String]
    /// Credentials a caller must prove with Digest (MD5, qop=auth); empty: no challenge.
    public var requiredCredentials: [SIPAuthCredentials]
    /// The realm of the challenges.
    public var realm: String

    /// Creates a policy; the default lets anybody call.
    public init(trustedSources: [String] = [], requiredCredentials: [SIPAuthCredentials] = [], realm: String = "voice") {
        self.trustedSources = trustedSources
        self.requiredCredentials = requiredCredentials
        self.realm = realm
    }

    /// Anybody who reaches the port may call.
    public static let anyone = SIPIncomingCallPolicy()
}
