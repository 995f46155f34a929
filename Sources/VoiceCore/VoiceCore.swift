@_exported import VoiceMedia

/// Version information for the SDK.
public enum VoiceSDK {
    /// The SDK's semantic version.
    public static let version = "0.1.0"
}
