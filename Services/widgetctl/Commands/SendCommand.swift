import ArgumentParser
import BusRuntime
import CommandLineText
import Foundation
import W3CTraceContext
import WidgetBusProtocol

struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send an intent or app message to intent-handler and print the reply.",
        discussion: "Message types: " + MessageType.allCases.filter(\.isIntent).map(\.rawValue).joined(separator: ", ")
    )

    @Argument(help: "The message type, e.g. RecordTensionIntent.")
    var type: String

    @Option(help: "The user the message is for.")
    var user: String

    @Option(help: "The message body as JSON, e.g. '{\"level\":7}'.")
    var body: String = "{}"

    @Option(help: "The message id (default: a new UUID). Reusing an id retries that message.")
    var id: String = UUID().uuidString.lowercased()

    @Option(
        help: """
            After the reply, print this widget kind's timeline (e.g. TensionCheckWidget) as of the change: \
            it asks timeline-service with the reply's `version` as its minimum version, so it never shows \
            the widget from before the change.
            """)
    var timeline: String?

    @Option(
        help: """
            Continue this W3C trace (a traceparent header value, e.g. from the gateway that took the \
            tap) instead of starting a new one.
            """)
    var traceparent: String?

    @Flag(help: "Print one JSON object: {\"traceId\", \"traceparent\", \"reply\"} (and \"timeline\" with --timeline).")
    var json = false

    @OptionGroup var options: RequestOptions

    func validate() throws {
        if let traceparent, TraceContext(traceparent: traceparent, tracestate: nil) == nil {
            throw ValidationError("--traceparent is not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>): \(traceparent)")
        }
    }

    func run() throws {
        let codec = WireCodec()
        let bodyValue: JSONValue
        do {
            bodyValue = try codec.decode(JSONValue.self, from: Data(body.utf8))
        } catch {
            throw ValidationError("--body is not valid JSON: \(error)")
        }
        // Every tap starts a trace (or continues the caller's): the services carry it to the file.
        let trace = traceparent.flatMap { TraceContext(traceparent: $0, tracestate: nil) } ?? .start()
        try reportingFailures {
            var envelope = Envelope(id: id, type: type, user: user, body: bodyValue)
            envelope.trace = trace
            let reply = try options.send(envelope, to: BusEndpoint.intents.resolve(in: ProcessInfo.processInfo.environment), codec: codec)
            let decoded = try ReplyDecoding.decode(reply, as: JSONValue.self, codec: codec)
            var printed = SentIntent(traceId: "\(trace.traceID)", traceparent: trace.traceParentHeaderValue, reply: try codec.decode(JSONValue.self, from: reply))
            if !json { Console.line(String(decoding: reply, as: UTF8.self)) }
            if case .failure(let error) = decoded {
                if json { Console.line(String(decoding: try codec.encode(printed), as: UTF8.self)) }
                throw RequestFailure.errorReply(error)
            }
            if let timeline {
                // A reply without a version (AppForeground's) changed nothing a timeline shows.
                let version = JSONFieldScanner(reply).object("body")?.unsignedInteger("version")
                let timelineReply = try options.requestTimeline(of: timeline, user: user, minimumVersion: version, codec: codec)
                let body = try printBody(of: timelineReply, as: JSONValue.self, codec: codec, printing: !json)
                printed.timeline = body
            }
            if json { Console.line(String(decoding: try codec.encode(printed), as: UTF8.self)) }
        }
    }
}

/// What `send --json` prints: the trace the intent started (or continued), its reply, and the
/// timeline asked for with `--timeline`.
private struct SentIntent: Encodable {
    var traceId: String
    var traceparent: String
    var reply: JSONValue
    var timeline: JSONValue?
}

extension MessageType {
    /// Whether `widgetctl send` is the way to send this type.
    var isIntent: Bool {
        rawValue.hasSuffix("Intent")
    }
}
