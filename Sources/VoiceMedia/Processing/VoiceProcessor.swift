/// A voice processing engine working on 10 ms frames of interleaved 16-bit samples: the render
/// frames (what the speaker plays) are its echo reference, the capture frames are processed in
/// place.
///
/// Implementers guarantee: no allocation in ``analyzeRender(_:)`` or ``processCapture(_:delayMilliseconds:)``;
/// what else they guarantee about threads is on each implementation.
package protocol VoiceProcessor: AnyObject {
    /// Samples per channel in one frame (10 ms).
    var frameLength: Int { get }
    /// Turns the stages on or off. Returns false when the library refused.
    func setStages(_ options: AudioProcessingOptions) -> Bool
    /// Takes one frame that is about to be played.
    func analyzeRender(_ frame: UnsafePointer<Int16>)
    /// Processes one captured frame in place. `delayMilliseconds` is how long after being
    /// analyzed a render frame's echo reaches this call.
    func processCapture(_ frame: UnsafeMutablePointer<Int16>, delayMilliseconds: Int)
    /// The echo canceller's running metrics in dB, when it has them.
    var echoMetrics: EchoMetrics? { get }
    /// The render-to-capture delay the echo canceller found, ms, when it estimates one.
    var echoDelayMilliseconds: Int? { get }
}

/// What an echo canceller reports, named as WebRTC's statistics name them.
package struct EchoMetrics: Hashable, Sendable {
    /// Far-end level over echo level in the microphone, dB (how much the room attenuates).
    package var echoReturnLoss: Double
    /// Echo level over what is left of it after cancellation, dB.
    package var echoReturnLossEnhancement: Double
}
