import Instrumentation
import Tracing
import W3CTraceContext
import WidgetBusProtocol

/// The spans of a service's work on a message, through swift-distributed-tracing: whatever
/// tracer the process bootstrapped receives them — none by default, where a span costs a call
/// that does nothing.
///
/// A span continues the trace the message carried (its W3C context handed to the tracer as the
/// headers of a remote parent), and names its trace id in the `widgetbus.trace_id` attribute. The
/// messages the work sends continue the trace from the span: with its own context when a tracer
/// put one there (its W3C `traceparent`), else with the incoming trace and a span id of this
/// hop's own (``TraceContext/continued()``), so the trace goes on with or without a tracer.
/// A message without a trace makes no span and passes none on: traces start at the client
/// (docs/PROTOCOL.md §4a), and untraced work costs nothing here.
public enum MessageSpan {
    /// Runs `body` in a span named `name` continuing `trace`; `body` gets the trace the messages
    /// it sends carry.
    public static func run<Result>(
        _ name: String, continuing trace: TraceContext?, ofKind kind: SpanKind = .internal, _ body: (TraceContext?) throws -> Result
    ) rethrows -> Result {
        guard let trace else { return try body(nil) }
        return try withSpan(name, context: context(continuing: trace), ofKind: kind) { span in
            span.attributes["widgetbus.trace_id"] = "\(trace.traceID)"
            return try body(outgoing(from: span.context, continuing: trace))
        }
    }

    /// Starts a span named `name` continuing `trace`, for work whose end the caller marks
    /// (`end()`): one of several done together, such as a file of a batch written at once. Nil
    /// without a trace.
    public static func start(_ name: String, continuing trace: TraceContext?) -> (any Span)? {
        guard let trace else { return nil }
        let span = startSpan(name, context: context(continuing: trace))
        span.attributes["widgetbus.trace_id"] = "\(trace.traceID)"
        return span
    }

    /// The context of a remote parent: `trace` as the W3C headers a tracer reads.
    private static func context(continuing trace: TraceContext) -> InstrumentationContext {
        var context = InstrumentationContext.topLevel
        let headers = ["traceparent": trace.traceParentHeaderValue, "tracestate": trace.traceStateHeaderValue]
        InstrumentationSystem.instrument.extract(headers, into: &context, using: Headers())
        return context
    }

    private static func outgoing(from context: InstrumentationContext, continuing trace: TraceContext) -> TraceContext {
        var headers: [String: String?] = [:]
        InstrumentationSystem.instrument.inject(context, into: &headers, using: Headers())
        return TraceContext(traceparent: headers["traceparent"] ?? nil, tracestate: headers["tracestate"] ?? nil) ?? trace.continued()
    }

    /// Reads and writes a message's trace as its two W3C headers, the carrier of a tracer.
    private struct Headers: Extractor, Injector {
        func extract(key: String, from carrier: [String: String?]) -> String? { carrier[key] ?? nil }
        func inject(_ value: String, forKey key: String, into carrier: inout [String: String?]) { carrier[key] = value }
    }
}
