import Logging
import ServiceLifecycle

/// How every service executable runs: its services in one group that shuts down gracefully on
/// SIGTERM (`docker stop`, the local runner) or SIGINT (Ctrl-C), the last listed first, so a
/// client listed before the service that uses it (sync-agent's PostgreSQL client) outlives it.
public enum ServiceMain {
    public static func run(_ services: [any Service], logger: Logger) async throws {
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
