/// How a software device (null, buffer, file) times its buffers.
public struct SoftwareAudioPacing: Sendable {
    enum Mode: Sendable {
        case clock(SoftwareAudioClock)
        case freeRunning(renderFrameLimit: Int?)
    }
    let mode: Mode

    /// One buffer per buffer duration, ticked by ``SoftwareAudioClock/shared``.
    public static let realTime = SoftwareAudioPacing(mode: .clock(.shared))

    /// One buffer per buffer duration, ticked by `clock`.
    package static func ticked(by clock: SoftwareAudioClock) -> SoftwareAudioPacing {
        SoftwareAudioPacing(mode: .clock(clock))
    }

    /// For tests and offline processing: each direction runs on its own thread as fast as it can.
    /// Capture delivers every buffer of its source, then ends (or loops, if the source loops, until stopped);
    /// render pulls until stopped or until `renderFrameLimit` frames have been rendered.
    public static func freeRunning(renderFrameLimit: Int? = nil) -> SoftwareAudioPacing {
        SoftwareAudioPacing(mode: .freeRunning(renderFrameLimit: renderFrameLimit))
    }
}
