import VoiceMediaTypes
import VoiceSupport

/// The outcome of an offer/answer exchange for the audio stream: everything the media layer
/// needs to configure and start an `AudioStream`. Value type; contains keys: never log `localKey`
/// or `remoteKey` (their descriptions redact the bytes).
package struct SDPNegotiatedMedia: Equatable, Sendable {
    /// The codec to send and receive, with Opus settings adjusted to the peer's `fmtp`.
    package var codec: MediaCodec
    /// The RTP payload type for ``codec``.
    package var payloadType: UInt8
    /// The RTP payload type for `telephone-event` at the codec's clock rate, if both sides have it.
    package var telephoneEventPayloadType: UInt8?
    /// The RTP payload type of RFC 2198 redundancy around ``codec`` (`red/48000/2`), if both
    /// sides have it for this codec.
    package var redPayloadType: UInt8?
    /// The most the peer takes on this stream in all, bits per second of RTP payload, when its
    /// description says (`b=TIAS`, RFC 3890, else `b=AS` less packet headers): what RFC 2198
    /// copies and the frames they repeat must share. Nil: no limit stated. (Its Opus
    /// `maxaveragebitrate` caps each encoding and is already in ``codec``'s settings.)
    package var peerBandwidthLimit: Int?
    /// The RTP header extension ID of the peer's RFC 6464 audio levels (what we read from its
    /// packets), when its offer mapped one; nil: none.
    package var audioLevelExtensionID: UInt8?
    /// Whether the peer's description asked for RTCP XR VoIP Metrics (`a=rtcp-xr:voip-metrics`,
    /// RFC 3611 §5.1): our reports then carry them.
    package var peerWantsVoIPMetrics = false
    /// Packetization time to send with, in ms.
    package var ptime: Int
    /// Where to send RTP.
    package var remoteRTP: SDPTransportAddress
    /// Where to send RTCP (equal to ``remoteRTP`` when multiplexed).
    package var remoteRTCP: SDPTransportAddress
    /// Whether RTP and RTCP share one port.
    package var rtcpMux: Bool
    /// Our SRTP key (we encrypt with it), nil for plain RTP.
    package var localKey: SRTPKeyMaterial?
    /// The peer's SRTP key (we decrypt with it), nil for plain RTP.
    package var remoteKey: SRTPKeyMaterial?
    /// What we do: sendrecv, sendonly (the peer holds nothing, we hold it), recvonly or inactive.
    package var direction: SDPDirection
    /// The DTLS-SRTP association to run on the stream's port, nil for SDES or plain RTP.
    package var dtls: SDPNegotiatedDTLS?
    /// The peer's ICE parameters and our role, nil when the peer does not do ICE. ``remoteRTP``
    /// stays the `c=`/`m=` address; the checks decide the path actually used.
    package var ice: SDPNegotiatedICE?

    /// Creates a result.
    package init(
        codec: MediaCodec, payloadType: UInt8, telephoneEventPayloadType: UInt8?, ptime: Int,
        remoteRTP: SDPTransportAddress, remoteRTCP: SDPTransportAddress, rtcpMux: Bool,
        localKey: SRTPKeyMaterial?, remoteKey: SRTPKeyMaterial?, direction: SDPDirection,
        dtls: SDPNegotiatedDTLS? = nil, ice: SDPNegotiatedICE? = nil
    ) {
        self.codec = codec
        self.payloadType = payloadType
        self.telephoneEventPayloadType = telephoneEventPayloadType
        self.ptime = ptime
        self.remoteRTP = remoteRTP
        self.remoteRTCP = remoteRTCP
        self.rtcpMux = rtcpMux
        self.localKey = localKey
        self.remoteKey = remoteKey
        self.direction = direction
        self.dtls = dtls
        self.ice = ice
    }

    /// The encryption for `AudioStreamConfiguration`: DTLS-SRTP when negotiated, SRTP when both
    /// SDES keys are known, else unencrypted.
    package var encryption: MediaEncryption {
        if dtls != nil { return .dtlsSRTP }
        if let localKey, let remoteKey { return .srtp(local: localKey, remote: remoteKey) }
        return .unencrypted
    }
}
