import VoiceAddress
import VoiceDTLS
import VoiceICE
import VoiceNetwork
import VoiceRTP

/// What a stream needs to run WebRTC's media path on its port: ICE (RFC 8445) to find and keep
/// the path, then DTLS-SRTP (RFC 5764) for the keys. The signaling side makes it from the
/// negotiated SDP: our credentials and candidates (written in our SDP), the peer's, the DTLS
/// role that `a=setup` decided, and the fingerprints the peer announced.
package struct MediaPathSetup: Sendable {
    /// The peer's ICE parameters, from its SDP.
    package struct RemoteICE: Sendable, Hashable {
        package var credentials: ICECredentials
        package var candidates: [ICECandidate]
        package var isLite: Bool

        package init(credentials: ICECredentials, candidates: [ICECandidate], isLite: Bool) {
            self.credentials = credentials
            self.candidates = candidates
            self.isLite = isLite
        }
    }

    /// What an ICE restart (RFC 8445 §9) changes: both sides' credentials, our candidates (the
    /// host moved), the peer's, and who controls. The DTLS association and its keys stay.
    package struct ICERestart: Sendable, Hashable {
        package var localCredentials: ICECredentials
        package var localCandidates: [ICECandidate]
        package var isControlling: Bool
        package var remote: RemoteICE

        package init(localCredentials: ICECredentials, localCandidates: [ICECandidate], isControlling: Bool, remote: RemoteICE) {
            self.localCredentials = localCredentials
            self.localCandidates = localCandidates
            self.isControlling = isControlling
            self.remote = remote
        }
    }

    package var localCredentials: ICECredentials
    package var localCandidates: [ICECandidate]
    /// RFC 8445 §6.1.1: the offerer controls (and always we, with an ICE-lite peer).
    package var isControlling: Bool
    /// Nil when the peer does no ICE: media and DTLS go to the address its SDP gave.
    package var remoteICE: RemoteICE?
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
        localCredentials: ICECredentials, localCandidates: [ICECandidate], isControlling: Bool, remoteICE: RemoteICE?,
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

/// Why a stream's WebRTC media path failed: the call cannot have audio.
package enum MediaPathFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Every ICE candidate pair failed: no path to the peer.
    case iceFailed
    /// No candidate of ours could be paired with one of the peer's (`local` and `remote`
    /// candidates: none share an address family and component, or one side has none), so ICE
    /// failed before a single check.
    case noCandidatePair(local: Int, remote: Int)
    /// The DTLS handshake failed (timed out, a fingerprint mismatch, no SRTP profile, an alert).
    case dtls(DTLSError)

    package var description: String {
        switch self {
        case .iceFailed: "ICE failed: no candidate pair reached the peer"
        case .noCandidatePair(let local, let remote):
            "ICE failed: none of our \(local) candidates can pair with the peer's \(remote) (no shared address family)"
        case .dtls(let error): error.description
        }
    }
}

extension ICETransportAddress {
    /// The address of a socket address (nil for one that is not IPv4 or IPv6).
    init?(_ address: SocketAddress) {
        guard let ip = IPAddress(address.host), (0...65_535).contains(address.port) else { return nil }
        self.init(ip: ip, port: UInt16(address.port))
    }
}

extension SocketAddress {
    /// The socket address of an ICE transport address.
    init?(_ address: ICETransportAddress) {
        guard let made = try? SocketAddress(host: address.ip.description, port: Int(address.port)) else { return nil }
        self = made
    }
}
