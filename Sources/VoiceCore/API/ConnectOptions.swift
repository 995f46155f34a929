import Dispatch
import Foundation
import VoiceMedia

/// What an outgoing call needs: the destination and custom parameters (`params`), how the call
/// behaves, and for a server that uses them an access token. Built once with a builder block,
/// like Twilio's `TVOConnectOptions`.
///
/// ```swift
/// let options = ConnectOptions { $0.params = ["To": "bob"] }                   // a plain SIP server
/// let options = ConnectOptions(accessToken: token) { $0.params = ["To": "bob"] } // a server that uses tokens
/// ```
///
/// Not `Sendable`: it holds the (main-queue-bound) message delegate.
public final class ConnectOptions {
    /// The access token (a JWT) presented to a server that asks for one (an RFC 8898 Bearer
    /// challenge), or nil for a server that uses none (plain SIP, with the configuration's digest
    /// credentials or without any).
    public let accessToken: String?
    /// `To` picks the destination; every other entry travels as an `X-` header and reaches the
    /// callee as a custom parameter.
    public let params: [String: String]
    /// The call's UUID (for CallKit-like integrations and logs).
    public let uuid: UUID
    /// Where delegate callbacks run. Default `DispatchQueue.main`, as in Twilio's SDK: an app
    /// without a running main loop (a server, a test) must pass its own serial queue.
    public let delegateQueue: DispatchQueue
    /// Codecs to offer, most preferred first.
    public let preferredAudioCodecs: [AudioCodec]
    /// Mark RTP packets DSCP EF (46).
    public let enableDscp: Bool
    /// Receives call messages sent and received on this call.
    public let callMessageDelegate: CallMessageDelegate?
    /// The audio device for this call; nil uses the client's. Shared with other calls on the same device object.
    public let audioDevice: (any AudioDevice)?
    /// The voice processing to run on the call's device (shared by every call on it); nil keeps
    /// what the device runs (at first its `AudioDevice.defaultAudioProcessing`).
    public let audioProcessing: AudioProcessingOptions?
    /// Extra SIP headers for a SIP-address destination: names must start with `X-`/`x-`, at
    /// most 1024 bytes together with the custom parameters.
    public let sipHeaders: [String: String]

    /// Creates options; `block` fills a builder.
    /// - Parameters:
    ///   - accessToken: A Twilio-style access token, for a server that uses them. It is checked
    ///     before any packet is sent (one that is not a JWT, has expired or is not valid yet fails
    ///     the call with 20101–20107 or 20157) and answers the server's Bearer challenges. Nil
    ///     (the default): no token is checked or sent; the call is placed as the configuration's
    ///     identity, and its digest credentials answer challenges.
    ///   - block: Sets the destination, parameters and behaviour on a builder.
    public init(accessToken: String? = nil, block: (ConnectOptionsBuilder) -> Void = { _ in }) {
        let builder = ConnectOptionsBuilder()
        block(builder)
        self.accessToken = accessToken
        self.params = builder.params
        self.uuid = builder.uuid ?? UUID()
        self.delegateQueue = builder.delegateQueue
        self.preferredAudioCodecs = builder.preferredAudioCodecs.isEmpty ? AudioCodec.defaultPreference : builder.preferredAudioCodecs
        self.enableDscp = builder.enableDscp
        self.callMessageDelegate = builder.callMessageDelegate
        self.audioDevice = builder.audioDevice
        self.audioProcessing = builder.audioProcessing
        self.sipHeaders = builder.sipHeaders
    }
}

/// The mutable side of ``ConnectOptions``, handed to its builder block.
public final class ConnectOptionsBuilder {
    /// `To` and custom parameters. Empty by default.
    public var params: [String: String] = [:]
    /// Default: a new UUID.
    public var uuid: UUID?
    /// Default: `DispatchQueue.main`.
    public var delegateQueue: DispatchQueue = .main
    /// Default: Opus (64 kbps, up to 80 kbps while FEC is on), G.722, PCMU, PCMA.
    public var preferredAudioCodecs: [AudioCodec] = AudioCodec.defaultPreference
    /// Default false.
    public var enableDscp = false
    /// Default nil.
    public var callMessageDelegate: CallMessageDelegate?
    /// Default nil: the client's audio device.
    public var audioDevice: (any AudioDevice)?
    /// Default nil: what the device runs (everything for ALSA, nothing for file and buffer devices).
    public var audioProcessing: AudioProcessingOptions?
    /// `X-` headers for a SIP-address destination. Empty by default.
    public var sipHeaders: [String: String] = [:]

    init() {}
}

/// How an incoming call is accepted, like Twilio's `TVOAcceptOptions`.
public final class AcceptOptions {
    /// The invite being accepted.
    public let callInvite: CallInvite
    /// The call's UUID; default the invite's.
    public let uuid: UUID
    /// Where delegate callbacks run. Default `DispatchQueue.main`.
    public let delegateQueue: DispatchQueue
    /// Codecs to accept, most preferred first.
    public let preferredAudioCodecs: [AudioCodec]
    /// Mark RTP packets DSCP EF (46).
    public let enableDscp: Bool
    /// Receives call messages on the call.
    public let callMessageDelegate: CallMessageDelegate?
    /// The audio device for this call; nil uses the client's. Shared with other calls on the same device object.
    public let audioDevice: (any AudioDevice)?
    /// The voice processing to run on the call's device (shared by every call on it); nil keeps
    /// what the device runs (at first its `AudioDevice.defaultAudioProcessing`).
    public let audioProcessing: AudioProcessingOptions?

    /// Creates options for `callInvite`; `block` fills a builder.
    public init(callInvite: CallInvite, block: (AcceptOptionsBuilder) -> Void = { _ in }) {
        let builder = AcceptOptionsBuilder()
        block(builder)
        self.callInvite = callInvite
        self.uuid = builder.uuid ?? callInvite.uuid
        self.delegateQueue = builder.delegateQueue
        self.preferredAudioCodecs = builder.preferredAudioCodecs.isEmpty ? AudioCodec.defaultPreference : builder.preferredAudioCodecs
        self.enableDscp = builder.enableDscp
        self.callMessageDelegate = builder.callMessageDelegate
        self.audioDevice = builder.audioDevice
        self.audioProcessing = builder.audioProcessing
    }
}

/// The mutable side of ``AcceptOptions``.
public final class AcceptOptionsBuilder {
    /// Default: the invite's UUID.
    public var uuid: UUID?
    /// Default: `DispatchQueue.main`.
    public var delegateQueue: DispatchQueue = .main
    /// Default: Opus (64 kbps, up to 80 kbps while FEC is on), G.722, PCMU, PCMA.
    public var preferredAudioCodecs: [AudioCodec] = AudioCodec.defaultPreference
    /// Default false.
    public var enableDscp = false
    /// Default nil.
    public var callMessageDelegate: CallMessageDelegate?
    /// Default nil: the client's audio device.
    public var audioDevice: (any AudioDevice)?
    /// Default nil: what the device runs (everything for ALSA, nothing for file and buffer devices).
    public var audioProcessing: AudioProcessingOptions?

    init() {}
}
