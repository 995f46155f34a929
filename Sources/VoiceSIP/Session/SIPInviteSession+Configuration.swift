import VoiceSupport

extension SIPInviteSession {
    /// What a session needs to know about this user agent.
    package struct Configuration: Sendable {
        /// Our From (UAC) or To (UAS) address, without a tag.
        package var localIdentity: SIPNameAddress
        /// Our Contact.
        package var contact: SIPURI
        /// The top Via template (transport, sent-by, `;rport`); each request gets a fresh branch.
        package var via: SIPVia
        /// Media capabilities for offers and answers.
        package var capabilities: SDPLocalCapabilities
        /// Credentials for 401/407 challenges.
        package var credentials: [SIPAuthCredentials]
        /// The User-Agent value, if any.
        package var userAgent: String?
        /// RFC 3261 T1, 500 ms by default.
        package var t1: MediaTime
        /// RFC 3261 T2, the cap on 2xx retransmission intervals; 4 s by default.
        package var t2: MediaTime
        /// Makes client nonces for digest answers; tests pass a fixed value.
        package var cnonce: @Sendable () -> String
        /// RFC 4028 session timers (``SIPSessionTimer``): on by default at 1800 s, Min-SE 90,
        /// as pjsip and linphone; nil turns them off (no `Supported: timer`).
        package var sessionTimer: SIPSessionTimer.Settings? = SIPSessionTimer.Settings()
        /// RFC 3262 (``SIPReliableProvisionals``): `Supported: 100rel` on our INVITEs, PRACK for
        /// the callee's reliable provisionals, and reliable ones of ours for a caller that
        /// requires them or supports them (for SDP). On by default; off, a `Require: 100rel`
        /// gets 420 from the agent.
        package var reliableProvisionals = true

        /// Creates a configuration; defaults as documented on each property.
        package init(
            localIdentity: SIPNameAddress, contact: SIPURI, via: SIPVia, capabilities: SDPLocalCapabilities,
            credentials: [SIPAuthCredentials] = [], userAgent: String? = nil, t1: MediaTime = .milliseconds(500),
            t2: MediaTime = .milliseconds(4000),
            cnonce: @escaping @Sendable () -> String = { SIPAuthenticator.randomCNonce() }
        ) {
            self.localIdentity = localIdentity
            self.contact = contact
            self.via = via
            self.capabilities = capabilities
            self.credentials = credentials
            self.userAgent = userAgent
            self.t1 = t1
            self.t2 = t2
            self.cnonce = cnonce
        }
    }
}
