import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle

/// The HTTP listener of a service: `GET /metrics` answers the registry in Prometheus's text
/// exposition format, `GET /healthz` answers `ok` while the process runs; anything else is 404
/// (405 for a method other than GET or HEAD). One event-loop thread of its own, so a scrape never
/// waits on the bus's thread and the bus never waits on a scrape: the registry is read under its
/// own locks, the ones each metric update takes briefly.
public struct MetricsHTTPServer: Service {
    let address: HTTPListenAddress
    let registry: PrometheusCollectorRegistry
    let logger: Logger

    public init(address: HTTPListenAddress, registry: PrometheusCollectorRegistry, logger: Logger) {
        self.address = address
        self.registry = registry
        self.logger = logger
    }

    public func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let registry = registry
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(MetricsHTTPHandler(registry: registry))
                    }
                }
                .bind(host: address.host, port: address.port).get()
            // The address bound, with port 0 resolved to the one the system gave.
            let bound = channel.localAddress.flatMap { bound in bound.port.map { "\(bound.ipAddress ?? address.host):\($0)" } }
            logger.info("serving metrics", metadata: ["widgetbus.http": "\(bound ?? address.description)"])
            // Until the group shuts down: the last of its services to stop (it is listed first).
            try? await gracefulShutdown()
            try? await channel.close()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }
}

/// Answers one request at a time on a connection, keeping it open when the client asks.
private final class MetricsHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let registry: PrometheusCollectorRegistry
    private var head: HTTPRequestHead?

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, context: context)
        }
    }

    /// The registry in the text exposition format, whose every line ends with a line feed (the
    /// registry leaves the last one off).
    private static func exposition(of registry: PrometheusCollectorRegistry) -> [UInt8] {
        var text = registry.emitToBuffer()
        if let last = text.last, last != UInt8(ascii: "\n") { text.append(UInt8(ascii: "\n")) }
        return text
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let (status, contentType, body): (HTTPResponseStatus, String, [UInt8])
        switch (head.method, path) {
        case (.GET, "/metrics"), (.HEAD, "/metrics"):
            (status, contentType, body) = (.ok, "text/plain; version=0.0.4; charset=utf-8", Self.exposition(of: registry))
        case (.GET, "/healthz"), (.HEAD, "/healthz"):
            (status, contentType, body) = (.ok, "text/plain; charset=utf-8", Array("ok\n".utf8))
        case (.GET, _), (.HEAD, _):
            (status, contentType, body) = (.notFound, "text/plain; charset=utf-8", Array("not found: /metrics or /healthz\n".utf8))
        default:
            (status, contentType, body) = (.methodNotAllowed, "text/plain; charset=utf-8", Array("GET or HEAD only\n".utf8))
        }
        var headers = HTTPHeaders([("content-type", contentType), ("content-length", "\(body.count)")])
        if !head.isKeepAlive { headers.add(name: "connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !head.isKeepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
