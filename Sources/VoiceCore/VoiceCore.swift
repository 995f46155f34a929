// The declarations of lower layers that an app uses, re-exported one by one so that
// `import VoiceCore` is all an app needs: audio devices (VoiceMedia) and the transport names in
// `VoiceClientConfiguration` (VoiceSIPAgent). Server settings are `VoiceService`'s; test devices
// are `VoiceTestKit`'s.
@_exported import protocol VoiceMedia.AudioDevice
@_exported import protocol VoiceMedia.AudioDeviceContext
@_exported import struct VoiceMedia.AudioDeviceError
@_exported import enum VoiceMedia.AudioDeviceEvent
@_exported import struct VoiceMedia.AudioFormat
@_exported import struct VoiceMedia.AudioDeviceLatency
@_exported import struct VoiceMedia.AudioProcessingOptions
@_exported import enum VoiceMedia.AudioProcessingFallback
@_exported import class VoiceMedia.ALSAAudioDevice
@_exported import class VoiceMedia.FileAudioDevice
@_exported import class VoiceMedia.PulseAudioDevice
@_exported import class VoiceMedia.AudioDeviceMonitor
@_exported import protocol VoiceMedia.AudioDeviceMonitorDelegate
@_exported import struct VoiceMedia.AudioDeviceInfo
@_exported import enum VoiceMedia.AudioDeviceChange
@_exported import enum VoiceMedia.AudioDeviceDirection
@_exported import enum VoiceMedia.AudioDeviceBackend
@_exported import struct VoiceMedia.AudioRecordingOptions
@_exported import struct VoiceMedia.AudioRecordingError
@_exported import struct VoiceMedia.AudioRecordingSummary
@_exported import class VoiceMedia.PCMAudioDevice
@_exported import struct VoiceMedia.SoftwareAudioPacing
@_exported import struct VoiceSIPAgent.SIPTransportEndpoint
@_exported import enum VoiceSIPAgent.SIPTransportProtocol

/// Version information for the SDK.
package enum VoiceSDK {
    /// The SDK's semantic version.
    package static let version = "0.1.0"
}
