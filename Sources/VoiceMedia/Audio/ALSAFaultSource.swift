/// Where an ``ALSAAudioDevice`` takes errors from in place of libasound's, in tests of the
/// failures a machine without a sound card cannot produce (a busy or unplugged device, a
/// suspend, an xrun storm). The `VoiceEmbedded` target's `ALSAFaultInjection` is one. An injected
/// transfer error goes through the same recovery as a real one, on the real, open PCM.
///
/// Implementations are read from the device threads: they must not block.
package protocol ALSAFaultSource: Sendable {
    /// The error (a negative errno, as libasound returns) the next open returns; nil: open for real.
    func nextOpenFault() -> Int32?
    /// The error the next read (`capture`) or write returns; nil: transfer for real.
    func nextTransferFault(capture: Bool) -> Int32?
}
