import VoiceDTLS
import VoiceICE
import VoiceMedia
import VoiceMediaPath
import VoiceSIP
import VoiceSIPAgent
import VoiceSupport

extension MediaPathSetup {
    /// The WebRTC media path of a negotiated DTLS-SRTP call: our ICE parameters in force (else
    /// `localICE`, as our SDP carried them) and the peer's, the DTLS role `a=setup` decided, the
    /// peer's fingerprints.
    /// - Throws: ``AudioStreamError/invalidConfiguration(_:)`` without a certificate or the
    ///   peer's DTLS parameters.
    init(
        negotiated media: SDPNegotiatedMedia, localICE: SDPICEParameters?, certificate: DTLSCertificate?, localPort: UInt16,
        resolvingNames: Bool = false
    ) throws(AudioStreamError)
    {
        guard let dtls = media.dtls else { throw .invalidConfiguration("a DTLS-SRTP call without the peer's DTLS parameters") }
        guard let certificate else { throw .invalidConfiguration("a DTLS-SRTP call without a certificate") }
        let local = media.ice?.local ?? localICE
        let localCredentials: ICECredentials
        if let local {
            localCredentials = ICECredentials(usernameFragment: local.usernameFragment, password: local.password)
        } else {
            var random = SecureRandomNumberGenerator()
            localCredentials = .random(using: &random)
        }
        var remoteICE: MediaPath.RemoteICE?
        if let ice = media.ice, local != nil { remoteICE = MediaPath.RemoteICE(ice.remote, resolvingNames: resolvingNames) }
        self.init(
            localCredentials: localCredentials, localCandidates: Self.localCandidates(local, port: localPort),
            isControlling: media.ice?.isControlling ?? true, remoteICE: remoteICE, certificate: certificate,
            dtlsRole: dtls.isClient ? .client : .server,
            remoteFingerprints: dtls.remoteFingerprints.map { DTLSFingerprint(algorithm: $0.hashFunction, bytes: $0.digest) })
    }

    /// Our candidates as the agent takes them: a server-reflexive one is sent from the host
    /// candidate on the same port.
    static func localCandidates(_ local: SDPICEParameters?, port: UInt16) -> [ICECandidate] {
        guard let local else { return [] }
        let parsed = local.candidates.compactMap(ICECandidate.init(remote:))
        let host = parsed.first { $0.kind == .host && $0.address.port == port }
        return parsed.map { candidate in
            var candidate = candidate
            // A relayed candidate is its own base (RFC 8445 §5.1.1.2).
            if candidate.kind != .host, candidate.kind != .relayed, let host { candidate.base = host.address }
            return candidate
        }
    }
}

extension MediaPath.RemoteICE {
    /// The peer's ICE parameters from its SDP (candidates we cannot use left out). With
    /// `resolvingNames`, its `.local` candidates are being resolved and will follow.
    init(_ remote: SDPICEParameters, resolvingNames: Bool) {
        self.init(
            credentials: ICECredentials(usernameFragment: remote.usernameFragment, password: remote.password),
            candidates: remote.candidates.compactMap(ICECandidate.init(remote:)), isLite: remote.isLite,
            moreCandidatesComing: resolvingNames && remote.candidates.contains { $0.multicastDNSName != nil })
    }
}

extension MediaPath.ICERestart {
    /// The restart a renegotiation with new ICE credentials asks for; nil without ICE.
    init?(negotiated media: SDPNegotiatedMedia, localPort: UInt16, resolvingNames: Bool = false) {
        guard let ice = media.ice, let local = ice.local else { return nil }
        self.init(
            localCredentials: ICECredentials(usernameFragment: local.usernameFragment, password: local.password),
            localCandidates: MediaPathSetup.localCandidates(local, port: localPort), isControlling: ice.isControlling,
            remote: MediaPath.RemoteICE(ice.remote, resolvingNames: resolvingNames))
    }
}

extension SDPNegotiatedMedia {
    /// Both sides' ICE credentials in force: a change means an ICE restart.
    var iceCredentials: [String]? {
        guard let ice, let local = ice.local else { return nil }
        return [local.usernameFragment, local.password, ice.remote.usernameFragment, ice.remote.password]
    }
}
