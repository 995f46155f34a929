/// A `b=<bwtype>:<bandwidth>` line (kilobits per second for `AS` and `CT`).
public struct SDPBandwidth: Hashable, Sendable {
    /// The modifier, e.g. `AS`, `CT`, `TIAS`.
    public var type: String
    /// The value.
    public var bandwidth: UInt64

    /// Creates a bandwidth line value.
    public init(type: String, bandwidth: UInt64) {
        self.type = type
        self.bandwidth = bandwidth
    }

    /// The line value, as after `b=`.
    public var value: String { "\(type):\(bandwidth)" }
}
