import VoiceICE
import VoiceDTLS
import VoiceRTP
import VoiceMedia
import VoiceSIP
import VoiceSupport

/// The media of one call as ``CallCore`` drives it: `SIPCallMedia` (an `AudioStream` on the
/// media engine) in production; tests of signaling and timing give the client a null one.
package protocol CallMedia: AnyObject, Sendable {
    /// The local address and RTP port the call's SDP announced.
    var localHost: String { get }
    var localPort: UInt16 { get }
    /// Starts the media on the first negotiation, updates it on later ones.
    func apply(_ negotiated: SDPNegotiatedMedia) throws(AudioStreamError)
    var isMuted: Bool { get set }
    var isOnHold: Bool { get set }
    func sendDigits(_ digits: String) throws(AudioStreamError)
    /// Moves the call's audio to another device.
    func switchAudioDevice(to device: any AudioDevice) throws(AudioStreamError)
    /// The running stream, if the media has one.
    var stream: AudioStream? { get }
    /// What the media has sent and received so far; nil before it runs.
    var stats: AudioStreamStats? { get }
    /// Stops the media. Idempotent.
    func stop()
}

extension SIPCallMedia: CallMedia {
    package var stats: AudioStreamStats? { stream?.stats }
}

/// What a call's media is made from.
package struct CallMediaRequest: Sendable {
    /// The local address and RTP port the call's SDP announced.
    package var localHost: String
    package var localPort: UInt16
    /// The sockets reserved on that port, for the stream to take over (nil: it binds them).
    package var reserved: ReservedMediaPort?
    /// The device the call's audio runs on.
    package var audioDevice: (any AudioDevice)?
    /// The engine that runs the stream.
    package var engine: MediaEngine
    /// Mark the call's media DSCP EF.
    package var enableDSCP: Bool
    /// Our ICE credentials and candidates, as the call's SDP carries them (DTLS-SRTP calls).
    package var localICE: SDPICEParameters? = nil
    /// The client's DTLS certificate (DTLS-SRTP calls).
    package var certificate: DTLSCertificate? = nil
    /// The TURN relay allocated for the call's port (its relayed candidate is in the SDP).
    package var relay: TURNRelay? = nil
}

/// Makes the media of each call a client places or answers.
package struct CallMediaFactory: Sendable {
    /// What the media reports (device interruptions, the peer's RTCP BYE), from whichever
    /// thread it happens on.
    package typealias EventHandler = @Sendable (AudioStreamEvent) -> Void

    /// Creates the media of a call; nothing runs until its first `apply`.
    package let make: @Sendable (_ request: CallMediaRequest, _ onEvent: @escaping EventHandler) -> any CallMedia

    package init(make: @escaping @Sendable (CallMediaRequest, @escaping EventHandler) -> any CallMedia) {
        self.make = make
    }

    /// Real media: an `AudioStream` on the client's media engine.
    package static let engine = CallMediaFactory { request, onEvent in
        SIPCallMedia(
            localHost: request.localHost, localPort: request.localPort, reserved: request.reserved, audioDevice: request.audioDevice,
            engine: request.engine, enableDSCP: request.enableDSCP, localICE: request.localICE, certificate: request.certificate,
            relay: request.relay, onEvent: onEvent)
    }
}
