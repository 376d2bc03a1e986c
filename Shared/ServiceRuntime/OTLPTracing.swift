#if OTLP
import Instrumentation
import Logging
import Observability
import OTel
import ServiceLifecycle
import ServiceSupport

/// Spans exported to an OpenTelemetry collector over OTLP/HTTP by swift-otel, in a build with
/// the `OTLP` package trait (`swift build --traits OTLP`): the default build leaves swift-otel
/// out, which saves minutes of compiling and megabytes of image for deployments without a
/// collector. With the trait, a service exports its spans (``MessageSpan``) when
/// `OTEL_EXPORTER_OTLP_ENDPOINT` names a collector; swift-otel reads the rest of the standard
/// `OTEL_*` variables itself (protocol, headers, batch timing). Only traces: metrics go to
/// Prometheus (``PrometheusMetrics``), logs to stderr.
enum OTLPTracing {
    static let endpoint = EnvironmentSetting(
        variable: "OTEL_EXPORTER_OTLP_ENDPOINT", defaultValue: "none: no spans exported",
        purpose: "OpenTelemetry collector the spans go to over OTLP/HTTP, e.g. http://collector:4318 (OTEL_* variables tune it)")

    /// Bootstraps swift-distributed-tracing with swift-otel's tracer when `environment` names a
    /// collector, and returns the service that exports the spans; nil when it names none.
    static func bootstrap(serviceName: String, environment: [String: String]) throws -> (any Service)? {
        guard let collector = environment[endpoint.variable], !collector.isEmpty else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = serviceName
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.otlpExporter.endpoint = collector
        let (tracer, service) = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(tracer)
        return service
    }
}
#endif
