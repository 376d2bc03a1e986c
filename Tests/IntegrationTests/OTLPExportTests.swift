#if OTLP
import Foundation
import Testing
import WidgetBusProtocol

/// In a build with the `OTLP` trait, the services' spans reach an OpenTelemetry collector: a
/// stand-in collector (Python's HTTP server, taking OTLP/HTTP JSON as a collector does) receives
/// the spans of one `widgetctl send` from intent-handler, timeline-service and snapshot-writer,
/// all in the trace the send started, intent-handler's a child of widgetctl's span.
@Suite(.serialized, .blockingThreads) struct OTLPExportTests {
    static let collector = #"""
        import http.server, sys
        out = open(sys.argv[1], "ab")
        class Collector(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"] or 0))
                out.write(self.path.encode() + b" " + body.replace(b"\n", b" ") + b"\n"); out.flush()
                self.send_response(200); self.send_header("Content-Type", "application/json"); self.end_headers()
                self.wfile.write(b"{}")
            def log_message(self, *args): pass
        server = http.server.HTTPServer(("127.0.0.1", 0), Collector)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    @Test("the spans of one tap reach the collector from three services, in the trace widgetctl started")
    func spansReachTheCollector() throws {
        let bus = try BusFixture()
        let received = bus.root.appendingPathComponent("collector.jsonl")
        let collector = try ServiceProcess(
            name: "collector", executable: URL(fileURLWithPath: "/usr/bin/env"), environment: ProcessInfo.processInfo.environment,
            logDirectory: bus.root, arguments: ["python3", "-c", Self.collector, received.path])
        defer { collector.kill9() }
        var port: Int?
        try bus.waitUntil("the collector listens", timeout: 10) {
            port = Int(collector.output.trimmingCharacters(in: .whitespacesAndNewlines))
            return port != nil
        }
        let exporting = [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(try #require(port))", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
            "OTEL_BSP_SCHEDULE_DELAY": "100",
        ]
        for service in [BusFixture.Service.intentHandler, .timelineService, .snapshotWriter] {
            try bus.start(service, extraEnvironment: exporting)
        }

        let sent = try bus.widgetctl("send", "RecordTensionIntent", "--user", "otto", "--body", #"{"level":7}"#, "--json")
        try #require(sent.status == 0, "send: \(sent.stdout) \(sent.stderr)")
        let printed = try JSONDecoder().decode(TracingTests.SentIntent.self, from: sent.stdoutData)
        let clientSpan = String(printed.traceparent.split(separator: "-")[2])

        var spans: [Span] = []
        try bus.waitUntil("the collector has the three services' spans", timeout: 30) {
            spans = Self.spans(in: (try? String(contentsOf: received, encoding: .utf8)) ?? "").filter { $0.traceId == printed.traceId }
            return Set(spans.map(\.name)).isSuperset(of: ["RecordTensionIntent", "build timeline", "write snapshot file"])
        }
        let handled = try #require(spans.first { $0.name == "RecordTensionIntent" })
        #expect(handled.parentSpanId == clientSpan, "intent-handler's span is a child of widgetctl's")
    }

    struct Span {
        var name: String
        var traceId: String
        var parentSpanId: String?
    }

    /// The spans of the OTLP/JSON requests the collector took (`/v1/traces`, one per line), ids
    /// as lower-case hex (OTLP/JSON's encoding; base64 read too).
    static func spans(in received: String) -> [Span] {
        received.split(separator: "\n").flatMap { line -> [Span] in
            guard line.hasPrefix("/v1/traces "), let data = line.dropFirst("/v1/traces ".count).data(using: .utf8),
                let request = try? JSONDecoder().decode(ExportRequest.self, from: data)
            else { return [] }
            return request.resourceSpans.flatMap(\.scopeSpans).flatMap(\.spans).map {
                Span(name: $0.name, traceId: hex($0.traceId), parentSpanId: $0.parentSpanId.map(hex).flatMap { $0.isEmpty ? nil : $0 })
            }
        }
    }

    static func hex(_ id: String) -> String {
        if id.count == 32 || id.count == 16, id.allSatisfy(\.isHexDigit) { return id.lowercased() }
        guard let bytes = Data(base64Encoded: id) else { return id }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    struct ExportRequest: Decodable {
        struct ResourceSpans: Decodable { var scopeSpans: [ScopeSpans] }
        struct ScopeSpans: Decodable { var spans: [RawSpan] }
        struct RawSpan: Decodable {
            var name: String
            var traceId: String
            var parentSpanId: String?
        }

        var resourceSpans: [ResourceSpans]
    }
}
#endif
