import ServiceLifecycle
import VoiceCore

/// A ``VoiceClient`` as a swift-service-lifecycle `Service`: it runs until the service group
/// shuts down gracefully (SIGTERM, SIGINT, or another service ending), then hangs every call up
/// with BYE, unregisters, and shuts the client down.
///
/// ```swift
/// let client = try VoiceClient(configuration: configuration)
/// client.register(notificationDelegate: answerer, delegateQueue: queue) { _ in }
/// let group = ServiceGroup(
///     services: [VoiceClientService(client: client)],
///     gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
public struct VoiceClientService: Service, Sendable {
    /// The client the service runs.
    public let client: VoiceClient
    /// How long the shutdown waits for the calls to end, and then for the unregistration.
    public var shutdownTimeout: Duration

    /// Wraps `client`, which the app has configured and registered as usual.
    public init(client: VoiceClient, shutdownTimeout: Duration = .seconds(5)) {
        self.client = client
        self.shutdownTimeout = shutdownTimeout
    }

    /// Waits for graceful shutdown (or cancellation), then ends the calls, unregisters and
    /// shuts the client down before returning.
    public func run() async throws {
        // Returns at graceful shutdown; throws when the task is cancelled instead. Either way
        // the calls end properly.
        try? await gracefulShutdown()
        let client = self.client
        let timeout = shutdownTimeout
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            client.shutdownGracefully(timeout: timeout) { done.resume() }
        }
    }
}
