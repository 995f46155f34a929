import Dispatch

/// How a preflight test call is placed: where to, for how long, with which codecs and device.
public struct PreflightOptions: Sendable {
    /// Whom to call: a user at the client's domain, or a SIP URI. By default `echo`, which a
    /// service answers with `EchoResponder` (VoiceService) or routes to one.
    public var destination: String
    /// How long the call lasts once connected (1 s … 5 min; Twilio's echo test lasts 20 s).
    public var duration: Duration = .seconds(15)
    /// Codecs, most preferred first.
    public var preferredAudioCodecs: [AudioCodec] = AudioCodec.defaultPreference
    /// What the test call sends; nil (the default): a generated test signal, so no microphone
    /// is needed (Twilio's `fakeMicInput`).
    public var audioDevice: (any AudioDevice)?
    /// A token for a server that asks for one.
    public var accessToken: String?
    /// Where the delegate is called.
    public var delegateQueue: DispatchQueue = .main

    /// Options for a test call to `destination`.
    public init(destination: String = "echo") { self.destination = destination }
}
