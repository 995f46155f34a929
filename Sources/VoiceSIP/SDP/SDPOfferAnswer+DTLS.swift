import VoiceMediaTypes

/// DTLS-SRTP with ICE, rtcp-mux and BUNDLE, as WebRTC peers write it (RFC 5763, RFC 5764,
/// RFC 8842, RFC 8839, RFC 8843): the parts of offer/answer that differ from SDES.
extension SDPOfferAnswer {
    /// How the answered stream is keyed.
    enum KeyExchange: Equatable {
        /// Plain RTP.
        case plain
        /// SDES `a=crypto` keys with one of `suites`.
        case sdes([SRTPSuite])
        /// A DTLS handshake on the stream's port.
        case dtls
    }

    /// What a DTLS session keeps once a description carried it: our ICE credentials, our
    /// certificate's fingerprint (the association outlives re-offers), and the audio section's mid.
    struct DTLSIdentity: Sendable {
        var usernameFragment: String
        var password: String
        var fingerprint: SDPFingerprint
        var mid: String?
    }

    /// The DTLS-SRTP parts of our answer to one audio section.
    struct DTLSAnswer {
        /// The media-level attributes after the direction: rtcp-mux, mid, ICE, fingerprint, setup.
        var attributes: [SDPAttribute]
        /// `a=group:BUNDLE` when the offer bundled the section.
        var sessionAttributes: [SDPAttribute]
        /// What the answer commits us to.
        var identity: DTLSIdentity
        var association: SDPNegotiatedDTLS
        var ice: SDPNegotiatedICE?
    }

    /// The profile our DTLS offers use.
    static let dtlsProfile = "UDP/TLS/RTP/SAVPF"

    /// The hash functions whose fingerprints we check (RFC 8122 §5 lets MD5 and MD2 through; we do not).
    static let usableFingerprintHashes: Set<String> = ["sha-1", "sha-224", "sha-256", "sha-384", "sha-512"]

    // MARK: Policy

    /// The key exchange our policy answers `offered` with.
    /// - Throws: ``SDPNegotiationError`` when the policy refuses the offer's profile, or a
    ///   re-offer would move a running stream between DTLS and SDES or plain RTP.
    func keyExchange(answering offered: SDPMediaDescription) throws(SDPNegotiationError) -> KeyExchange {
        let exchange: KeyExchange
        switch capabilities.encryption {
        case let .srtp(suites):
            guard !offered.isDTLSSRTP else { throw .dtlsNotEnabled }
            guard offered.isSecureRTP else { throw .encryptionRequired }
            exchange = .sdes(suites)
        case .unencrypted:
            guard !offered.isSecureRTP, !offered.isDTLSSRTP else { throw .encryptionNotEnabled }
            exchange = .plain
        case .dtlsSRTP:
            guard offered.isDTLSSRTP else { throw offered.isSecureRTP ? .dtlsRequired : .encryptionRequired }
            exchange = .dtls
        case let .automatic(suites):
            if offered.isDTLSSRTP {
                exchange = .dtls
            } else if offered.isSecureRTP {
                exchange = .sdes(suites)
            } else {
                throw .encryptionRequired
            }
        }
        // DTLS keys belong to the association on the stream's port: a running stream keeps its key exchange.
        if let previous = negotiated {
            if previous.dtls != nil, exchange != .dtls { throw .dtlsRequired }
            if previous.dtls == nil, exchange == .dtls { throw .dtlsNotEnabled }
        }
        return exchange
    }

    // MARK: Offers

    /// The media-level attributes after the formats, and the session-level ones, of a DTLS offer;
    /// keeps our identity for the rest of the session. Every offer says `actpass` (RFC 5763 §5, and
    /// JSEP for re-offers too): the answer picks the role, which must keep the one in force.
    /// - Throws: ``SDPNegotiationError/dtlsNotConfigured(_:)``.
    mutating func dtlsOffer(direction: SDPDirection) throws(SDPNegotiationError) -> (media: [SDPAttribute], session: [SDPAttribute]) {
        var identity = try currentDTLSIdentity()
        let mid = identity.mid ?? "0"
        identity.mid = mid
        dtlsIdentity = identity
        let media =
            [.ptime(capabilities.ptime), .direction(direction)]
            + dtlsAttributes(identity, mid: mid, withICE: true, setup: .actpass)
        return (media, [SDPAttribute(name: "group", value: "BUNDLE \(mid)")])
    }

    // MARK: Answers

    /// Checks a DTLS offer's section and builds our side of it: `rtcp-mux` and a usable
    /// fingerprint are required; our role follows the offer's `a=setup` (RFC 4145 §4, RFC 5763 §5)
    /// and stays what it was in a re-offer; ICE is answered only when offered.
    /// - Throws: ``SDPNegotiationError``.
    /// A re-offer with new ICE credentials restarts ICE (RFC 8445 §9, RFC 8839 §4.4.1.1.1): our
    /// answer then carries `restartCredentials` too.
    func answerDTLS(
        _ offered: SDPMediaDescription, in offer: SDPSessionDescription, restartCredentials: (usernameFragment: String, password: String)
    ) throws(SDPNegotiationError) -> DTLSAnswer {
        guard offered.rtcpMux else { throw .rtcpMuxRequired }
        let fingerprints = Self.usableFingerprints(of: offered, in: offer)
        guard !fingerprints.isEmpty else { throw .noUsableFingerprint }
        let previous = negotiated?.dtls
        // An offer without a=setup means active (RFC 4145 §4), so we are passive.
        let theirs: SDPSetupRole
        switch Self.setupAttribute(of: offered, in: offer) {
        case .absent: theirs = .active
        case let .role(role): theirs = role
        case let .invalid(text): throw .dtlsSetupRefused("a=setup:\(text) is not a role")
        }
        let isClient: Bool
        switch theirs {
        case .actpass: isClient = previous?.isClient ?? true
        case .passive: isClient = true
        case .active: isClient = false
        case .holdconn: throw .dtlsSetupRefused("the offer holds the connection (holdconn)")
        }
        if let previous, previous.isClient != isClient {
            throw .dtlsSetupRefused("a=setup:\(theirs.rawValue) would swap the roles of the DTLS association in force")
        }
        var identity = try currentDTLSIdentity()
        let mid = offered.mid
        identity.mid = mid
        let remoteICE = SDPICEParameters(media: offered, session: offer)
        if let remoteICE, let previous = negotiated?.ice,
            previous.remote.usernameFragment != remoteICE.usernameFragment || previous.remote.password != remoteICE.password
        {
            (identity.usernameFragment, identity.password) = restartCredentials
        }
        let local = localICEParameters(identity)
        let ice = remoteICE.map { SDPNegotiatedICE(remote: $0, isControlling: isICEControlling(asOfferer: false, remote: $0), local: local) }
        // Our answer bundles the one section we take, if the offer bundled it (RFC 8843 §7.3).
        var bundle: [SDPAttribute] = []
        if let mid, Self.bundleGroups(in: offer).contains(where: { $0.contains(mid) }) {
            bundle = [SDPAttribute(name: "group", value: "BUNDLE \(mid)")]
        }
        return DTLSAnswer(
            attributes: dtlsAttributes(identity, mid: mid, withICE: remoteICE != nil, setup: isClient ? .active : .passive),
            sessionAttributes: bundle,
            identity: identity,
            association: SDPNegotiatedDTLS(isClient: isClient, remoteFingerprints: fingerprints),
            ice: ice)
    }

    /// Checks the DTLS parts of the answer to our DTLS offer: `rtcp-mux`, a usable fingerprint,
    /// and `a=setup` `active` (we are the server; also when absent, RFC 4145 §4) or `passive` (we
    /// are the client), keeping the role in force.
    /// - Throws: ``SDPNegotiationError``.
    func acceptDTLSAnswer(
        _ theirs: SDPMediaDescription, in answer: SDPSessionDescription
    ) throws(SDPNegotiationError) -> (association: SDPNegotiatedDTLS, ice: SDPNegotiatedICE?) {
        guard theirs.rtcpMux else { throw .rtcpMuxRequired }
        let fingerprints = Self.usableFingerprints(of: theirs, in: answer)
        guard !fingerprints.isEmpty else { throw .noUsableFingerprint }
        let isClient: Bool
        switch Self.setupAttribute(of: theirs, in: answer) {
        case .absent, .role(.active): isClient = false
        case .role(.passive): isClient = true
        case let .role(role): throw .answerMismatch("a=setup:\(role.rawValue) in an answer")
        case let .invalid(text): throw .answerMismatch("a=setup:\(text)")
        }
        if let previous = negotiated?.dtls, previous.isClient != isClient {
            throw .answerMismatch("a=setup swaps the roles of the DTLS association in force")
        }
        let local = dtlsIdentity.map(localICEParameters)
        let ice = SDPICEParameters(media: theirs, session: answer).map {
            SDPNegotiatedICE(remote: $0, isControlling: isICEControlling(asOfferer: true, remote: $0), local: local)
        }
        return (SDPNegotiatedDTLS(isClient: isClient, remoteFingerprints: fingerprints), ice)
    }

    // MARK: Helpers

    /// Our identity: the one already sent in this session, else one from the capabilities.
    /// - Throws: ``SDPNegotiationError/dtlsNotConfigured(_:)`` when the capabilities lack it.
    private func currentDTLSIdentity() throws(SDPNegotiationError) -> DTLSIdentity {
        if let dtlsIdentity { return dtlsIdentity }
        guard let ice = capabilities.ice else { throw .dtlsNotConfigured("our ICE parameters (SDPLocalCapabilities.ice)") }
        guard let fingerprint = capabilities.dtlsFingerprint else {
            throw .dtlsNotConfigured("our certificate's fingerprint (SDPLocalCapabilities.dtlsFingerprint)")
        }
        return DTLSIdentity(usernameFragment: ice.usernameFragment, password: ice.password, fingerprint: fingerprint)
    }

    /// Our ICE parameters as our descriptions write them.
    private func localICEParameters(_ identity: DTLSIdentity) -> SDPICEParameters {
        SDPICEParameters(
            usernameFragment: identity.usernameFragment, password: identity.password, candidates: capabilities.ice?.candidates ?? [],
            endOfCandidates: true)
    }

    /// Fresh ICE credentials (RFC 8445 §5.3): a 4-character fragment and a 24-character password
    /// of ice-chars, 144 bits of randomness.
    static func freshICECredentials(using generator: inout some RandomNumberGenerator) -> (usernameFragment: String, password: String) {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        func text(_ count: Int) -> String { String((0..<count).map { _ in alphabet[Int.random(in: 0..<64, using: &generator)] }) }
        return (text(4), text(24))
    }

    /// `a=rtcp-mux`, `a=mid`, our ICE attributes (credentials kept, the current candidates, no
    /// trickle since gathering is complete), `a=fingerprint` and `a=setup`.
    private func dtlsAttributes(_ identity: DTLSIdentity, mid: String?, withICE: Bool, setup: SDPSetupRole) -> [SDPAttribute] {
        var attributes: [SDPAttribute] = [.rtcpMux]
        if let mid { attributes.append(SDPAttribute(name: "mid", value: mid)) }
        if withICE {
            let ice = SDPICEParameters(
                usernameFragment: identity.usernameFragment, password: identity.password,
                options: capabilities.ice?.options.filter { $0.lowercased() != "trickle" } ?? [],
                candidates: capabilities.ice?.candidates ?? [], endOfCandidates: true)
            attributes += ice.mediaAttributes
        }
        attributes.append(SDPAttribute(name: "fingerprint", value: identity.fingerprint.value))
        attributes.append(SDPAttribute(name: "setup", value: setup.rawValue))
        return attributes
    }

    /// Whether our agent controls the checks against `remote`: always against an ICE-lite peer
    /// (RFC 8445 §6.1.1); else the role in force while the peer keeps its credentials; else the
    /// offerer's.
    private func isICEControlling(asOfferer: Bool, remote: SDPICEParameters) -> Bool {
        if remote.isLite { return true }
        if let previous = negotiated?.ice, previous.remote.usernameFragment == remote.usernameFragment,
            previous.remote.password == remote.password
        {
            return previous.isControlling
        }
        return asOfferer
    }

    /// The fingerprints of `media` with a SHA-1 or SHA-2 hash.
    private static func usableFingerprints(of media: SDPMediaDescription, in session: SDPSessionDescription) -> [SDPFingerprint] {
        media.fingerprints(in: session).filter { usableFingerprintHashes.contains($0.hashFunction) }
    }

    /// What a section's `a=setup` (else the session's) says.
    private enum SetupAttribute {
        case absent
        case role(SDPSetupRole)
        case invalid(String)
    }

    private static func setupAttribute(of media: SDPMediaDescription, in session: SDPSessionDescription) -> SetupAttribute {
        guard let text = media.attributeValues("setup").first ?? session.attributes.first(where: { $0.name == "setup" })?.value else {
            return .absent
        }
        return SDPSetupRole(parsing: Substring(text)).map { .role($0) } ?? .invalid(text)
    }

    /// The mids of each session-level `a=group:BUNDLE` (RFC 8843).
    private static func bundleGroups(in session: SDPSessionDescription) -> [[String]] {
        session.attributes.compactMap { attribute in
            guard attribute.name == "group", let value = attribute.value else { return nil }
            let tokens = value.split(separator: " ").map(String.init)
            guard let semantics = tokens.first, semantics.uppercased() == "BUNDLE" else { return nil }
            return Array(tokens.dropFirst())
        }
    }
}

extension SDPOfferAnswer {
    /// The peer refused our first offer, a DTLS-SRTP one, with 488 or 415: under
    /// ``SDPEncryptionPolicy/automatic(suites:)`` the offer is forgotten and the session offers
    /// SDES from now on (the peer does only that). False, and nothing changes, under any other
    /// policy, once media was negotiated, or when no offer is outstanding.
    package mutating func fallBackToSDES() -> Bool {
        guard case let .automatic(suites) = capabilities.encryption, case .offerSent(_, nil) = state else { return false }
        rollbackOffer()
        capabilities.encryption = .srtp(suites: suites)
        capabilities.ice = nil
        dtlsIdentity = nil
        return true
    }
}

extension SDPOfferAnswer {
    /// Our side restarts ICE (RFC 8445 §9): the host moved, so our next offer carries `ice`'s new
    /// credentials and candidates. The DTLS association, its fingerprint and roles stay.
    package mutating func restartICE(with ice: SDPICEParameters) {
        capabilities.ice = ice
        dtlsIdentity?.usernameFragment = ice.usernameFragment
        dtlsIdentity?.password = ice.password
    }
}
