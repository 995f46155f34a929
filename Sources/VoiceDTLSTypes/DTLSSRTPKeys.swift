import VoiceMediaTypes

/// What a finished DTLS-SRTP handshake gives the media stream (RFC 5764 §4.2): the negotiated
/// SRTP profile and one master key and salt for each direction.
package struct DTLSSRTPKeys: Sendable, Equatable, CustomStringConvertible {
    /// Protects what this side sends.
    package let local: SRTPKeyMaterial
    /// Unprotects what the peer sends.
    package let remote: SRTPKeyMaterial
    /// The peer certificate's fingerprint that matched its SDP.
    package let peerFingerprint: DTLSFingerprint
    /// The DTLS version and cipher suite, for logs and stats (`DTLSv1.2`, `ECDHE-ECDSA-AES128-GCM-SHA256`).
    package let version: String
    package let cipher: String

    package var suite: SRTPSuite { local.suite }

    package var description: String { "\(version) \(cipher), SRTP \(suite.sdesName)" }

    /// Splits RFC 5764 §4.2's exported block: client key, server key, client salt, server salt.
    package init(exported: [UInt8], suite: SRTPSuite, role: DTLSRole, peerFingerprint: DTLSFingerprint, version: String, cipher: String) {
        let keyLength = suite.masterKeyLength
        let saltLength = suite.masterSaltLength
        precondition(exported.count == 2 * (keyLength + saltLength), "exported keying material has the wrong length")
        let clientKey = exported[0..<keyLength]
        let serverKey = exported[keyLength..<(2 * keyLength)]
        let clientSalt = exported[(2 * keyLength)..<(2 * keyLength + saltLength)]
        let serverSalt = exported[(2 * keyLength + saltLength)...]
        let client = SRTPKeyMaterial(unchecked: suite, keyAndSalt: Array(clientKey + clientSalt))
        let server = SRTPKeyMaterial(unchecked: suite, keyAndSalt: Array(serverKey + serverSalt))
        local = role == .client ? client : server
        remote = role == .client ? server : client
        self.peerFingerprint = peerFingerprint
        self.version = version
        self.cipher = cipher
    }
}
