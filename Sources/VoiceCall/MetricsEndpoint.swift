import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus

/// `GET /metrics` in Prometheus's text format, on a port of its own (`voicecall listen
/// --metrics-port`). Anything else gets 404; a request body is ignored.
final class MetricsEndpoint: Sendable {
    let registry: PrometheusCollectorRegistry
    private let channel: any Channel

    /// Binds `host`:`port` (0: any free port) and serves `registry`.
    init(registry: PrometheusCollectorRegistry, host: String = "0.0.0.0", port: Int) throws {
        self.registry = registry
        channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(MetricsHTTPHandler(registry: registry))
                }
            }
            .bind(host: host, port: port).wait()
    }

    /// The port it listens on.
    var port: Int { channel.localAddress?.port ?? 0 }

    func close() { try? channel.close().wait() }
}

/// Answers each request on one connection.
private final class MetricsHTTPHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let registry: PrometheusCollectorRegistry

    init(registry: PrometheusCollectorRegistry) { self.registry = registry }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let request) = unwrapInboundIn(data) else { return }
        let found = request.method == .GET && (request.uri == "/metrics" || request.uri.hasPrefix("/metrics?"))
        let body = found ? registry.emitToBuffer() : Array("not found\n".utf8)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: found ? "text/plain; version=0.0.4" : "text/plain")
        headers.add(name: "Content-Length", value: "\(body.count)")
        let head = HTTPResponseHead(
            version: request.version, status: found ? .ok : .notFound, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        let keepAlive = request.isKeepAlive
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }
}
