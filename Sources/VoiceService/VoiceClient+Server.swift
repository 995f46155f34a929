import NIOCore
import NIOPosix
import VoiceCore

extension VoiceClient {
    /// Creates a client with a service's settings, on the SDK's event loops or on a SwiftNIO
    /// group the service already runs.
    ///
    /// - Parameters:
    ///   - configuration: Who the client is, where it listens and how it signals.
    ///   - server: Who may call it, its limits, how it accepts connections and recognises rooms.
    ///   - audioDevice: The device calls capture from and play to; nil: none.
    ///   - eventLoopGroup: Where the client's signaling runs (one loop of it); nil: the SDK's
    ///     own. The group must outlive the client.
    /// - Throws: ``VoiceError`` as ``VoiceClient/init(configuration:audioDevice:)`` does.
    public convenience init(
        configuration: VoiceClientConfiguration, server: VoiceServerSettings, audioDevice: (any AudioDevice)? = nil,
        eventLoopGroup: (any EventLoopGroup)? = nil
    ) throws(VoiceError) {
        var configuration = configuration
        server.apply(to: &configuration)
        try self.init(
            configuration: configuration, audioDevice: audioDevice, eventLoopGroup: eventLoopGroup ?? VoiceClient.defaultEventLoopGroup)
    }

    /// Makes an event loop group for clients whose threads the kernel wakes promptly: a short
    /// scheduler slice and, where the process may lower it, a nice value of −5. A signaling loop
    /// uses a few percent of a core, so this takes next to nothing from the media threads. What
    /// the kernel refuses is skipped. The caller owns the group and shuts it down.
    public static func makeSignalingEventLoopGroup(numberOfThreads: Int = 1) -> MultiThreadedEventLoopGroup {
        makeEventLoopGroup(numberOfThreads: numberOfThreads)
    }
}
