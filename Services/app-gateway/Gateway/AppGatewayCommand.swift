import AppGatewayIdentity
import ArgumentParser
import BusRuntime
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdTLS
import Logging
import ServiceLifecycle
import ServiceRuntime
import ServiceSupport
import WidgetBusProtocol

/// The service's command line: `--help` lists the environment it reads; running it serves the
/// HTTP API until SIGTERM. Its executable, and the image's multi-call binary, call ``main()``.
public struct AppGatewayCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "app-gateway",
        abstract: "Serves the apps' HTTPS API: proves each user with a bearer token and speaks to the bus for them.",
        discussion: EnvironmentSetting.helpText(
            GatewaySettings.all + GatewayBusService.Endpoints.settings + BusSecurity.settings + ServiceMain.settings + [.logLevel])
    )

    public init() {}

    public func run() async throws {
        let logger = LoggingBootstrap.makeLogger(label: "app-gateway")
        let environment = ProcessInfo.processInfo.environment
        try await ServiceMain.run(logger: logger) {
            // The settings first: a refused one is named before any key is fetched.
            let settings = try GatewaySettings(environment: environment)
            let binding = try BusBinding(connectingIn: environment)
            let verifier: IdentityVerifier
            do {
                verifier = try IdentityVerifier(
                    issuers: try await IssuersFile.trustedIssuers(in: environment, logger: logger), leeway: settings.tokenLeeway)
            } catch let error as IdentityConfigurationError {
                throw InvalidSetting("\(IssuersFile.setting.variable): \(error)")
            }
            let conversations = try BusConversations()
            let published = PublishedTimelines()
            let streams = LiveStreams()
            let bus = GatewayBusService(
                endpoints: .init(environment: environment), binding: binding, conversations: conversations,
                published: published, streams: streams, logger: logger)
            let api = GatewayAPI(
                conversations: conversations, published: published, streams: streams, writes: RateLimiter(settings.writes),
                limits: settings.limits, snapshotRoot: settings.snapshotRoot)
            let application = try GatewayServer.application(
                api: api, tokens: VerifiedTokens(verifier: verifier, leeway: settings.tokenLeeway), settings: settings, logger: logger)
            // A shutdown stops them from the last: the heartbeat first, which ends every event
            // stream, then the server, whose connections are then done with them, and the bus
            // thread once no request can arrive.
            return [bus, application, LiveStreamHeartbeat(streams: streams, interval: settings.limits.heartbeat)]
        }
    }
}

/// The HTTP server around ``GatewayAPI``.
enum GatewayServer {
    static func application(
        api: GatewayAPI, tokens: VerifiedTokens, settings: GatewaySettings, logger: Logger
    ) throws -> some Service {
        let router = Router(context: GatewayRequestContext.self)
        router.add(middleware: GatewayMetricsMiddleware())
        router.add(middleware: ProblemMiddleware())
        router.add(middleware: AddressLimitMiddleware(limiter: RateLimiter(settings.addresses)))
        router.get("healthz") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
        }
        api.addRoutes(to: router.group(RouterPath(GatewayAPI.pathPrefix)).add(middleware: AuthenticationMiddleware(tokens: tokens)))

        // Each HTTP/1.1 connection and HTTP/2 stream: its idle timeout, then event
        // streams served from the pipeline (EventStreamChannelHandler).
        let responder = router.buildResponder()
        var requests = HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                IdleTimeout(settings.idleTimeout, logger: logger),
                EventStreamChannelHandler(responder: responder, streams: api.streams, logger: logger),
            ])
        requests.httpDecoder = .init(maxHeaderFieldSize: 8 * 1024, maxHeaderListSize: 16 * 1024, maxHeaderFieldCount: 100)
        let http1 = requests
        let server: HTTPServerBuilder
        if let tls = settings.tls {
            // A connection has the idle timeout to finish its TLS handshake, as it has afterwards
            // between requests.
            server = HTTPServerBuilder { responder in
                HandshakeDeadlineChannel(
                    base: try HTTP2UpgradeChannel(
                        tlsConfiguration: tls, configuration: .init(idleTimeout: settings.idleTimeout, streamConfiguration: http1),
                        responder: responder),
                    deadline: .seconds(Int64(settings.idleTimeout.asSeconds.rounded(.up))))
            }
        } else {
            server = .http1(configuration: http1)
        }
        let scheme = settings.tls == nil ? "http" : "https"
        return Application(
            responder: responder, server: server,
            configuration: .init(
                address: .hostname(settings.host, port: settings.port), serverName: nil, backlog: 1_024,
                availableConnectionsDelegate: MaximumAvailableConnections(settings.maxConnections)),
            onServerRunning: { channel in
                logger.info(
                    "app-gateway listening",
                    metadata: ["widgetbus.url": "\(scheme)://\(settings.host):\(channel.localAddress?.port ?? settings.port)"])
            },
            logger: logger)
    }
}
