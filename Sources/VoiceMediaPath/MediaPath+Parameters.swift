import VoiceICE

extension MediaPath {
    /// The peer's ICE parameters, from its SDP.
    package struct RemoteICE: Sendable, Hashable {
        package var credentials: ICECredentials
        package var candidates: [ICECandidate]
        package var isLite: Bool
        /// Some candidates are names being resolved (mDNS `.local`): they come later through
        /// ``MediaPath/addRemoteCandidates(_:usernameFragment:now:)``, and until then the agent
        /// does not fail for want of pairs.
        package var moreCandidatesComing: Bool

        package init(credentials: ICECredentials, candidates: [ICECandidate], isLite: Bool, moreCandidatesComing: Bool = false) {
            self.credentials = credentials
            self.candidates = candidates
            self.isLite = isLite
            self.moreCandidatesComing = moreCandidatesComing
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
}
