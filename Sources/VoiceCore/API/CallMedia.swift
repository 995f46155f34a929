import VoiceRTP
import VoiceMedia
import VoiceSIP

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

/// Makes the media of each call a client places or answers.
package struct CallMediaFactory: Sendable {
    /// What the media reports (device interruptions, the peer's RTCP BYE), from whichever
    /// thread it happens on.
    package typealias EventHandler = @Sendable (AudioStreamEvent) -> Void

    /// Creates the media of a call whose SDP announced `localHost`:`localPort`; nothing runs
    /// until its first `apply`.
    package let make: @Sendable (
        _ localHost: String, _ localPort: UInt16, _ audioDevice: (any AudioDevice)?, _ engine: MediaEngine, _ enableDSCP: Bool,
        _ onEvent: @escaping EventHandler
    ) -> any CallMedia

    package init(make: @escaping @Sendable (String, UInt16, (any AudioDevice)?, MediaEngine, Bool, @escaping EventHandler) -> any CallMedia) {
        self.make = make
    }

    /// Real media: an `AudioStream` on the client's media engine.
    package static let engine = CallMediaFactory { host, port, device, engine, dscp, onEvent in
        SIPCallMedia(localHost: host, localPort: port, audioDevice: device, engine: engine, enableDSCP: dscp, onEvent: onEvent)
    }
}
