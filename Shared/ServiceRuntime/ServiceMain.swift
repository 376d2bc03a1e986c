import Foundation
import Logging
import ServiceLifecycle
import ServiceSupport
import UnixSignals

/// How every service executable runs: its services in one group that shuts down gracefully on
/// SIGTERM (`docker stop`, the local runner) or SIGINT (Ctrl-C), the last listed first, so a
/// client listed before the service that uses it (sync-agent's PostgreSQL client) outlives it.
///
/// With `WIDGETBUS_HTTP_LISTEN` set, the process reports its metrics to Prometheus
/// (``PrometheusMetrics``), bootstrapped before `makeServices` makes anything that could make a
/// metric, and serves them over HTTP (``MetricsHTTPServer``), listed first so it answers scrapes
/// until the services have stopped; unset, metrics go nowhere and cost nothing beyond a call that
/// does nothing.
///
/// A setting refused while the services are made (``InvalidSetting``, from the configuration
/// `makeServices` reads or from the listener's) ends the process before anything runs, with one
/// line and ``InvalidSetting/exitStatus``, the same in every service.
public enum ServiceMain {
    public static func run(
        logger: Logger, environment: [String: String] = ProcessInfo.processInfo.environment,
        _ makeServices: () async throws -> [any Service]
    ) async throws {
        var services: [any Service] = []
        do {
            if let listen = try HTTPListenAddress(environment: environment) {
                services.append(MetricsHTTPServer(address: listen, registry: PrometheusMetrics.bootstrap(), logger: logger))
            }
            #if OTLP
            if let exporter = try OTLPTracing.bootstrap(serviceName: logger.label, environment: environment) {
                services.append(exporter)
            }
            #endif
            services += try await makeServices()
        } catch let refusal as InvalidSetting {
            refusal.exitProcess(executable: logger.label)
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// The settings ``run(logger:environment:_:)`` reads, for each service's `--help`.
    public static var settings: [EnvironmentSetting] {
        #if OTLP
        HTTPListenAddress.settings + [OTLPTracing.endpoint]
        #else
        HTTPListenAddress.settings
        #endif
    }
}
