/// Size limits applied to every authentication header value parsed.
public enum SIPAuthLimits: Sendable {
    /// Longest header value accepted, in bytes.
    public static let maxHeaderValueLength = 4096
    /// Longest single token or (unescaped) quoted value, in bytes.
    public static let maxParameterLength = 1024
    /// Most parameters accepted in one challenge.
    public static let maxParameterCount = 32
}
