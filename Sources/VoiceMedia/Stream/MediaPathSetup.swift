import VoiceAddress
import VoiceDTLS
import VoiceICE
import VoiceMediaPath
import VoiceNetwork
import VoiceRTP

/// What a stream needs to run WebRTC's media path on its port: ICE (RFC 8445) to find and keep
/// the path, then DTLS-SRTP (RFC 5764) for the keys. The signaling side makes it from the
/// negotiated SDP: our credentials and candidates (written in our SDP), the peer's, the DTLS
/// role that `a=setup` decided, and the fingerprints the peer announced.
package struct MediaPathSetup: Sendable {
    package var localCredentials: ICECredentials
    package var localCandidates: [ICECandidate]
    /// RFC 8445 §6.1.1: the offerer controls (and always we, with an ICE-lite peer).
    package var isControlling: Bool
    /// Nil when the peer does no ICE: media and DTLS go to the address its SDP gave.
    package var remoteICE: MediaPath.RemoteICE?
    package var certificate: DTLSCertificate
    package var dtlsRole: DTLSRole
    /// The peer's `a=fingerprint` values.
    package var remoteFingerprints: [DTLSFingerprint]
    package var ice: ICEAgentConfiguration
    package var dtls: DTLSConfiguration
    /// The TURN allocation our relayed candidate is on; the stream keeps it alive and sends
    /// and receives through it when ICE selects a relayed pair.
    package var relay: TURNRelay?

    package init(
        localCredentials: ICECredentials, localCandidates: [ICECandidate], isControlling: Bool, remoteICE: MediaPath.RemoteICE?,
        certificate: DTLSCertificate, dtlsRole: DTLSRole, remoteFingerprints: [DTLSFingerprint],
        ice: ICEAgentConfiguration = ICEAgentConfiguration(), dtls: DTLSConfiguration = DTLSConfiguration()
    ) {
        self.localCredentials = localCredentials
        self.localCandidates = localCandidates
        self.isControlling = isControlling
        self.remoteICE = remoteICE
        self.certificate = certificate
        self.dtlsRole = dtlsRole
        self.remoteFingerprints = remoteFingerprints
        self.ice = ice
        self.dtls = dtls
    }
}

extension MediaPath {
    /// The path `setup` describes, for a stream on `localAddress` whose peer's SDP gave
    /// `signaledRemote`; nil when either is not an IP address.
    init?(setup: MediaPathSetup, localAddress: SocketAddress, signaledRemote: SocketAddress) {
        guard let local = TransportAddress(localAddress), let remote = TransportAddress(signaledRemote) else { return nil }
        self.init(
            localCredentials: setup.localCredentials, localCandidates: setup.localCandidates, isControlling: setup.isControlling,
            remoteICE: setup.remoteICE, configuration: setup.ice, relay: setup.relay, localAddress: local, signaledRemote: remote)
    }
}
