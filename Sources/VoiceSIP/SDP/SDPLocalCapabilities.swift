import VoiceMediaTypes
import VoiceSupport

/// What this endpoint can do and where it receives media: the input to building offers and answers.
package struct SDPLocalCapabilities: Hashable, Sendable {
    /// Codecs in preference order. Default Opus (voice settings), G.722, PCMU, PCMA.
    package var codecs: [MediaCodec]
    /// Whether to offer and accept RFC 4733 `telephone-event` (DTMF). Default true.
    package var telephoneEvents: Bool
    /// Whether to offer and accept RFC 2198 redundancy around Opus (`red/48000/2`, fmtp
    /// `111/111`, as browsers offer it): the peer's RED packets are then taken apart and their
    /// redundant frames fill losses. Default true.
    package var redundancy: Bool = true
    /// Whether our descriptions list RED before the codec, which asks the peer to send it
    /// (browsers send RED only when the other side's description puts it first). Default
    /// false: we take a peer's RED when it sends it, without asking for twice its bitrate.
    package var requestsRedundancy: Bool = false
    /// Packetization time we want to receive, in ms (one of ``MediaCodec/supportedPtimes``). Default 20.
    package var ptime: Int
    /// Encryption policy. Default ``SDPEncryptionPolicy/required``.
    package var encryption: SDPEncryptionPolicy
    /// Whether to offer and accept RTP/RTCP multiplexing (RFC 5761). Default true. DTLS-SRTP
    /// descriptions always multiplex, as WebRTC requires.
    package var rtcpMux: Bool
    /// The address media is received on (the `c=` address): an IPv4 or IPv6 literal or a host name.
    package var address: String
    /// The local RTP port.
    package var port: UInt16
    /// The local RTCP port when not multiplexed, announced with `a=rtcp`; nil means port + 1.
    package var rtcpPort: UInt16?
    /// The `o=` username. Default `-`.
    package var username: String
    /// Our ICE agent's credentials and gathered candidates (RFC 8839), for DTLS-SRTP descriptions.
    /// Gathering is complete before we write SDP, so descriptions always say `a=end-of-candidates`
    /// and never `a=ice-options:trickle`. We are a full agent: `isLite` is not used. Default nil.
    package var ice: SDPICEParameters?
    /// The fingerprint of the certificate our DTLS side presents (sha-256, RFC 8122), for
    /// DTLS-SRTP descriptions. Default nil.
    package var dtlsFingerprint: SDPFingerprint?

    /// Creates capabilities; parameters default to the values documented on each property.
    package init(
        address: String, port: UInt16, codecs: [MediaCodec] = [.opus(.voice), .g722, .pcmu, .pcma],
        telephoneEvents: Bool = true, ptime: Int = 20, encryption: SDPEncryptionPolicy = .required,
        rtcpMux: Bool = true, rtcpPort: UInt16? = nil, username: String = "-",
        ice: SDPICEParameters? = nil, dtlsFingerprint: SDPFingerprint? = nil
    ) {
        self.address = address
        self.port = port
        self.codecs = codecs
        self.telephoneEvents = telephoneEvents
        self.ptime = ptime
        self.encryption = encryption
        self.rtcpMux = rtcpMux
        self.rtcpPort = rtcpPort
        self.username = username
        self.ice = ice
        self.dtlsFingerprint = dtlsFingerprint
    }

    /// `IP6` for an address holding a colon, else `IP4`.
    package var addressType: String { address.contains(":") ? "IP6" : "IP4" }

    /// The connection line for ``address``.
    package var connection: SDPConnection { SDPConnection(addressType: addressType, address: address) }
}
