import VoiceDTLS
import VoiceICE
import VoiceMedia
import VoiceSIP
import VoiceSIPAgent
import VoiceSupport

extension MediaPathSetup {
    /// The WebRTC media path of a negotiated DTLS-SRTP call: our ICE parameters (as our SDP
    /// carried them) and the peer's, the DTLS role `a=setup` decided, the peer's fingerprints.
    /// - Throws: ``AudioStreamError/invalidConfiguration(_:)`` without a certificate or the
    ///   peer's DTLS parameters.
    init(negotiated media: SDPNegotiatedMedia, localICE: SDPICEParameters?, certificate: DTLSCertificate?, localPort: UInt16)
        throws(AudioStreamError)
    {
        guard let dtls = media.dtls else { throw .invalidConfiguration("a DTLS-SRTP call without the peer's DTLS parameters") }
        guard let certificate else { throw .invalidConfiguration("a DTLS-SRTP call without a certificate") }
        var localCredentials: ICECredentials
        var localCandidates: [ICECandidate] = []
        if let localICE {
            localCredentials = ICECredentials(usernameFragment: localICE.usernameFragment, password: localICE.password)
            let parsed = localICE.candidates.compactMap(ICECandidate.init(remote:))
            // Our server-reflexive candidates are sent from the host candidate on the same port.
            let host = parsed.first { $0.kind == .host && $0.address.port == localPort }
            localCandidates = parsed.map { candidate in
                var candidate = candidate
                if candidate.kind != .host, let host { candidate.base = host.address }
                return candidate
            }
        } else {
            var random = SecureRandomNumberGenerator()
            localCredentials = .random(using: &random)
        }
        var remoteICE: RemoteICE?
        if let ice = media.ice, localICE != nil {
            remoteICE = RemoteICE(
                credentials: ICECredentials(usernameFragment: ice.remote.usernameFragment, password: ice.remote.password),
                candidates: ice.remote.candidates.compactMap(ICECandidate.init(remote:)), isLite: ice.remote.isLite)
        }
        self.init(
            localCredentials: localCredentials, localCandidates: localCandidates, isControlling: media.ice?.isControlling ?? true,
            remoteICE: remoteICE, certificate: certificate, dtlsRole: dtls.isClient ? .client : .server,
            remoteFingerprints: dtls.remoteFingerprints.map { DTLSFingerprint(algorithm: $0.hashFunction, bytes: $0.digest) })
    }
}
