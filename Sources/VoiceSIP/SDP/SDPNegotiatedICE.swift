/// The ICE side of a negotiated stream (RFC 8445, RFC 8839): the peer's credentials and
/// candidates, and our role in the checks.
package struct SDPNegotiatedICE: Hashable, Sendable {
    /// The peer's ICE parameters from its description.
    package var remote: SDPICEParameters
    /// Whether our agent is controlling (it nominates the pair): the offerer is, the answerer is
    /// not (RFC 8445 §6.1.1), unless the peer is ICE-lite, when we always are. The role stays
    /// across re-offers that keep the peer's credentials.
    package var isControlling: Bool
    /// Our credentials and candidates in force (new ones after an ICE restart, RFC 8445 §9).
    package var local: SDPICEParameters?

    /// Creates a result.
    package init(remote: SDPICEParameters, isControlling: Bool, local: SDPICEParameters? = nil) {
        self.remote = remote
        self.isControlling = isControlling
        self.local = local
    }
}
