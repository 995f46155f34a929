/// The system's cryptographically secure generator (`getrandom(2)`), for keys, tags, nonces and
/// SSRCs.
///
/// It draws exactly what `SystemRandomNumberGenerator` draws. The one difference is a stored byte:
/// `SystemRandomNumberGenerator` is an empty struct, and an empty value passed `inout` to generic
/// code has no meaningful address, which ThreadSanitizer's instrumentation then writes shadow
/// memory for and crashes (swiftlang/swift#66099). Giving the type storage keeps the whole
/// package runnable under `--sanitize=thread`.
package struct SecureRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var system = SystemRandomNumberGenerator()
    private var storage: UInt8 = 0

    package init() {}

    package mutating func next() -> UInt64 {
        system.next()
    }
}
