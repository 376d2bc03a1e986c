import InMemoryTracing
import Instrumentation
import Tracing

/// The tracer of the whole test process. swift-distributed-tracing takes one bootstrap per
/// process, so every in-process test that looks at spans shares this one, and finds its own by
/// the trace id its message carried (the `widgetbus.trace_id` attribute of every span).
public enum TestTracer {
    public static let shared: InMemoryTracer = {
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()

    /// The finished spans of the trace `traceID`.
    public static func finishedSpans(inTrace traceID: String) -> [FinishedInMemorySpan] {
        shared.finishedSpans.filter { $0.attributes.get("widgetbus.trace_id") == .string(traceID) }
    }
}
