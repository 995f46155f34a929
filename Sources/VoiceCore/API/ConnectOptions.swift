import Dispatch
import Foundation
import VoiceMedia

/// How a call behaves, placed or accepted: what ``ConnectOptions`` and ``AcceptOptions`` share,
/// and what their builders set (`builder.delegateQueue = queue`).
///
/// Not `Sendable`: it holds the (main-queue-bound) message delegate.
public struct CallOptions {
    /// The call's UUID (for CallKit-like integrations and logs). Default: a new one for an
    /// outgoing call, the invite's for an incoming one.
    public var uuid: UUID?
    /// Where delegate callbacks run. Default `DispatchQueue.main`, as in Twilio's SDK: an app
    /// without a running main loop (a server, a test) must pass its own serial queue.
    public var delegateQueue: DispatchQueue = .main
    /// Codecs to offer or accept, most preferred first. Default: Opus (64 kbps, up to 80 kbps
    /// while FEC is on), G.722, PCMU, PCMA.
    public var preferredAudioCodecs: [AudioCodec] = AudioCodec.defaultPreference
    /// Mark RTP packets DSCP EF (46). Default false.
    public var enableDscp = false
    /// Receives call messages sent and received on this call. Default nil.
    public var callMessageDelegate: CallMessageDelegate?
    /// The audio device for this call; nil (the default) uses the client's. Shared with other
    /// calls on the same device object.
    public var audioDevice: (any AudioDevice)?
    /// The voice processing to run on the call's device (shared by every call on it); nil (the
    /// default) keeps what the device runs (at first its `AudioDevice.defaultAudioProcessing`:
    /// everything for ALSA, nothing for file and PCM devices).
    public var audioProcessing: AudioProcessingOptions?

    init() {}

    /// The options with their defaults filled in: a UUID, and the codec preference if emptied.
    func resolved(uuid defaultUUID: @autoclosure () -> UUID) -> CallOptions {
        var options = self
        options.uuid = uuid ?? defaultUUID()
        if options.preferredAudioCodecs.isEmpty { options.preferredAudioCodecs = AudioCodec.defaultPreference }
        return options
    }
}

/// What an outgoing call needs: the destination and custom parameters (`params`), how the call
/// behaves (``CallOptions``), and for a server that uses them an access token. Built once with
/// a builder block, like Twilio's `TVOConnectOptions`.
///
/// ```swift
/// let options = ConnectOptions { $0.params = ["To": "bob"] }                   // a plain SIP server
/// let options = ConnectOptions(accessToken: token) { $0.params = ["To": "bob"] } // a server that uses tokens
/// ```
///
/// Reads ``CallOptions``' properties through it (`options.delegateQueue`).
@dynamicMemberLookup
public final class ConnectOptions {
    /// The access token (a JWT) presented to a server that asks for one (an RFC 8898 Bearer
    /// challenge), or nil for a server that uses none (plain SIP, with the configuration's digest
    /// credentials or without any).
    public let accessToken: String?
    /// `To` picks the destination; every other entry travels as an `X-` header and reaches the
    /// callee as a custom parameter.
    public let params: [String: String]
    /// Extra SIP headers for a SIP-address destination: names must start with `X-`/`x-`, at
    /// most 1024 bytes together with the custom parameters.
    public let sipHeaders: [String: String]
    /// The call's UUID: the builder's, or a new one.
    public let uuid: UUID
    let options: CallOptions

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
        self.sipHeaders = builder.sipHeaders
        self.options = builder.options.resolved(uuid: UUID())
        self.uuid = options.uuid ?? UUID()
    }

    /// A property of the call's ``CallOptions``.
    public subscript<Value>(dynamicMember keyPath: KeyPath<CallOptions, Value>) -> Value { options[keyPath: keyPath] }
}

/// The mutable side of ``ConnectOptions``, handed to its builder block: `params`, `sipHeaders`,
/// and every property of ``CallOptions`` (`builder.delegateQueue = queue`).
@dynamicMemberLookup
public final class ConnectOptionsBuilder {
    /// `To` and custom parameters. Empty by default.
    public var params: [String: String] = [:]
    /// `X-` headers for a SIP-address destination. Empty by default.
    public var sipHeaders: [String: String] = [:]
    var options = CallOptions()

    init() {}

    /// A property of the call's ``CallOptions``.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<CallOptions, Value>) -> Value {
        get { options[keyPath: keyPath] }
        set { options[keyPath: keyPath] = newValue }
    }
}

/// How an incoming call is accepted, like Twilio's `TVOAcceptOptions`: the invite, and how the
/// call behaves (``CallOptions``, read through it: `options.delegateQueue`).
@dynamicMemberLookup
public final class AcceptOptions {
    /// The invite being accepted.
    public let callInvite: CallInvite
    /// The call's UUID: the builder's, or the invite's.
    public let uuid: UUID
    let options: CallOptions

    /// Creates options for `callInvite`; `block` sets ``CallOptions``' properties on a builder.
    public init(callInvite: CallInvite, block: (AcceptOptionsBuilder) -> Void = { _ in }) {
        let builder = AcceptOptionsBuilder()
        block(builder)
        self.callInvite = callInvite
        self.options = builder.options.resolved(uuid: callInvite.uuid)
        self.uuid = options.uuid ?? callInvite.uuid
    }

    /// A property of the call's ``CallOptions``.
    public subscript<Value>(dynamicMember keyPath: KeyPath<CallOptions, Value>) -> Value { options[keyPath: keyPath] }
}

/// The mutable side of ``AcceptOptions``: every property of ``CallOptions``.
@dynamicMemberLookup
public final class AcceptOptionsBuilder {
    var options = CallOptions()

    init() {}

    /// A property of the call's ``CallOptions``.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<CallOptions, Value>) -> Value {
        get { options[keyPath: keyPath] }
        set { options[keyPath: keyPath] = newValue }
    }
}
