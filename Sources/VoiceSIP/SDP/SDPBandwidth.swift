/// A `b=<bwtype>:<bandwidth>` line (kilobits per second for `AS` and `CT`).
package struct SDPBandwidth: Hashable, Sendable {
    /// The modifier, e.g. `AS`, `CT`, `TIAS`.
    package var type: String
    /// The value.
    package var bandwidth: UInt64

    /// Creates a bandwidth line value.
    package init(type: String, bandwidth: UInt64) {
        self.type = type
        self.bandwidth = bandwidth
    }

    /// The line value, as after `b=`.
    package var value: String { "\(type):\(bandwidth)" }
}
