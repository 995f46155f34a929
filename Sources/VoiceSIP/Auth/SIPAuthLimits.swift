/// Size limits applied to every authentication header value parsed.
package enum SIPAuthLimits: Sendable {
    /// Longest header value accepted, in bytes.
    package static let maxHeaderValueLength = 4096
    /// Longest single token or (unescaped) quoted value, in bytes.
    package static let maxParameterLength = 1024
    /// Most parameters accepted in one challenge.
    package static let maxParameterCount = 32
}
