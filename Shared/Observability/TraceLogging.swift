import Logging
import W3CTraceContext

extension Logger.Metadata {
    /// `metadata` with `widgetbus.trace_id` added when the message has a trace: every log line
    /// about a message names its trace, so one `grep` of the trace id `widgetctl send --json`
    /// printed finds the message in every service.
    public static func traced(_ trace: TraceContext?, _ metadata: Logger.Metadata) -> Logger.Metadata {
        guard let trace else { return metadata }
        var metadata = metadata
        metadata["widgetbus.trace_id"] = "\(trace.traceID)"
        return metadata
    }
}
