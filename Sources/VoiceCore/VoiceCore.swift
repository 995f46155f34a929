// The declarations of lower layers that an app uses, re-exported one by one so that
// `import VoiceCore` is all an app needs: audio devices (VoiceMedia) and the signaling settings in
// `VoiceClientConfiguration` (VoiceSIP, VoiceSIPAgent). Nothing else of those modules is public.
@_exported import enum VoiceNetwork.NetworkInterfaceType
@_exported import protocol VoiceMedia.AudioDevice
@_exported import protocol VoiceMedia.AudioDeviceContext
@_exported import struct VoiceMedia.AudioDeviceError
@_exported import enum VoiceMedia.AudioDeviceEvent
@_exported import struct VoiceMedia.AudioFormat
@_exported import struct VoiceMedia.AudioDeviceLatency
@_exported import struct VoiceMedia.AudioProcessingOptions
@_exported import enum VoiceMedia.AudioProcessingFallback
@_exported import class VoiceMedia.ALSAAudioDevice
@_exported import class VoiceMedia.BufferAudioDevice
@_exported import class VoiceMedia.FileAudioDevice
@_exported import class VoiceMedia.NullAudioDevice
@_exported import struct VoiceMedia.SoftwareAudioPacing
@_exported import enum VoiceMediaTypes.OpusApplication
@_exported import enum VoiceMediaTypes.OpusBandwidth
@_exported import enum VoiceMediaTypes.OpusBitrateMode
@_exported import struct VoiceMediaTypes.OpusSettings
@_exported import enum VoiceMediaTypes.OpusSignal
@_exported import enum VoiceMedia.WAVFileError
@_exported import struct VoiceSIP.SIPAuthCredentials
@_exported import struct VoiceSIPAgent.SIPIncomingCallPolicy
@_exported import struct VoiceSIPAgent.SIPTransportConfiguration
@_exported import struct VoiceSIPAgent.SIPTransportEndpoint
@_exported import enum VoiceSIPAgent.SIPTransportProtocol
@_exported import struct VoiceSIPAgent.SIPUserAgentLimits

/// Version information for the SDK.
public enum VoiceSDK {
    /// The SDK's semantic version.
    public static let version = "0.1.0"
}
