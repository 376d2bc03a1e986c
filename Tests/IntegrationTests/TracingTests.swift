import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

/// One tap followed by its W3C trace id through the real services: `widgetctl send --json`
/// starts the trace, and intent-handler, timeline-service and snapshot-writer each log it for
/// their part (the fixture runs them at debug level, where the per-message lines are).
@Suite(.serialized, .blockingThreads) struct TracingTests {
    /// The trace ids a service's log names (`widgetbus.trace_id=…`).
    static func traceIDs(in log: String) -> Set<String> {
        Set(log.matches(of: /widgetbus\.trace_id=([0-9a-f]{32})/).map { String($0.1) })
    }

    @Test("one widgetctl send yields log lines with its trace id in intent-handler, timeline-service and snapshot-writer")
    func oneTapOneTraceAcrossTheServices() throws {
        let bus = try BusFixture()
        let handler = try bus.start(.intentHandler)
        let timelines = try bus.start(.timelineService)
        let writer = try bus.start(.snapshotWriter)

        let sent = try bus.widgetctl("send", "RecordTensionIntent", "--user", "tracy", "--body", #"{"level":7}"#, "--json")
        try #require(sent.status == 0, "send: \(sent.stdout) \(sent.stderr)")
        let printed = try JSONDecoder().decode(SentIntent.self, from: sent.stdoutData)
        #expect(printed.traceparent.hasPrefix("00-\(printed.traceId)-") && printed.traceparent.count == 55)
        #expect(printed.reply.type == "StateReply")
        _ = try bus.tensionSnapshot(user: "tracy", version: printed.reply.body.version)

        for (name, process) in [("intent-handler", handler), ("timeline-service", timelines), ("snapshot-writer", writer)] {
            try bus.waitUntil("\(name) logs the trace", timeout: 10) { Self.traceIDs(in: process.log).contains(printed.traceId) }
        }
        #expect(writer.log.split(separator: "\n").contains {
            $0.contains("snapshot written") && $0.contains(printed.traceId) && $0.contains("TensionCheckWidget")
        }, "snapshot-writer names the trace on the line of the file it wrote")

        // A second tap is a second trace: each service tells them apart.
        let second = try bus.widgetctl("send", "RecordTensionIntent", "--user", "tracy", "--body", #"{"level":3}"#, "--json")
        let secondTrace = try JSONDecoder().decode(SentIntent.self, from: second.stdoutData).traceId
        #expect(secondTrace != printed.traceId)
        try bus.waitUntil("snapshot-writer logs the second trace", timeout: 10) { Self.traceIDs(in: writer.log).contains(secondTrace) }
    }

    @Test("a pushed sample's trace goes through metrics-ingest, timeline-service and snapshot-writer")
    func aSampleIsTracedToItsFile() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        let ingest = try bus.start(.metricsIngest)
        let timelines = try bus.start(.timelineService)
        let writer = try bus.start(.snapshotWriter)
        let pushed = try bus.widgetctl(
            "ingest", "stress", "--user", "mia", "--score", "55", "--taken-at", WireDate.format(MetricsIngestTests.minute(2)))
        try #require(pushed.status == 0, "ingest: \(pushed.stdout) \(pushed.stderr)")
        let traceID = try JSONDecoder().decode(PushedSamples.self, from: pushed.stdoutData).traceId
        for (name, process) in [("metrics-ingest", ingest), ("timeline-service", timelines), ("snapshot-writer", writer)] {
            try bus.waitUntil("\(name) logs the sample's trace", timeout: 10) { Self.traceIDs(in: process.log).contains(traceID) }
        }
        #expect(writer.log.split(separator: "\n").contains {
            $0.contains("snapshot written") && $0.contains(traceID) && $0.contains("StressMonitorWidget")
        })
    }

    struct PushedSamples: Decodable { var traceId: String }

    @Test("the events continue the request's trace: same trace id, a span id of each hop's own")
    func eventsContinueTheTrace() throws {
        let bus = try BusFixture()
        try bus.start(.intentHandler)
        try bus.start(.timelineService)
        let watch = try ServiceProcess(
            name: "watch", executable: BusFixture.productsDirectory.appendingPathComponent("widgetctl"),
            environment: bus.environment, logDirectory: bus.root, arguments: ["watch", "--heartbeats", "--seconds", "30"])
        defer { watch.kill9() }
        try bus.waitUntil("the watch hears both publishers", timeout: 10) {
            watch.output.contains(#""publisher":"intent-handler""#) && watch.output.contains(#""publisher":"timeline-service""#)
        }
        let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let sent = try bus.widgetctl(
            "send", "RecordTensionIntent", "--user", "hop", "--body", #"{"level":5}"#, "--traceparent", traceparent, "--json")
        try #require(sent.status == 0, "send: \(sent.stdout) \(sent.stderr)")
        #expect(try JSONDecoder().decode(SentIntent.self, from: sent.stdoutData).traceId == "4bf92f3577b34da6a3ce929d0e0e4736")

        var parents: [String: String] = [:]  // event type → its traceparent
        try bus.waitUntil("the state and timeline events arrive", timeout: 10) {
            for line in watch.output.split(separator: "\n") {
                guard let header = try? JSONDecoder().decode(EventHeader.self, from: Data(line.utf8)), header.user == "hop" else { continue }
                parents[header.type] = header.traceparent
            }
            return parents["StateChanged"] != nil && parents["TimelineChanged"] != nil
        }
        let state = try #require(parents["StateChanged"] ?? nil)
        let timeline = try #require(parents["TimelineChanged"] ?? nil)
        for hop in [state, timeline] {
            #expect(hop.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-") && hop.hasSuffix("-01"), "\(hop)")
        }
        #expect(Set([traceparent, state, timeline]).count == 3, "each hop has a span id of its own")
    }

    @Test("a traceparent that does not parse is no trace: the intent is answered and changes the state as without one")
    func aMalformedTraceIsIgnored() throws {
        let bus = try BusFixture()
        let handler = try bus.start(.intentHandler)
        let client = try RawClient(endpoint: bus.endpoint(.intents))
        for (index, traceparent) in ["01-nonsense", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "42"].enumerated() {
            let request = #"{"version":1,"id":"bad-trace-\#(index)","type":"RecordTensionIntent","user":"odd","sentAt":"2026-11-22T10:00:00.000Z","traceparent":"\#(traceparent)","body":{"level":7}}"#
            let reply = try #require(try client.exchange([Data(request.utf8)]))
            let header = try JSONDecoder().decode(EventHeader.self, from: reply[0])
            #expect(header.type == "StateReply", "\(traceparent): \(String(decoding: reply[0], as: UTF8.self))")
        }
        #expect(Self.traceIDs(in: handler.log).isEmpty, "no trace id was made up for them")
    }

    struct SentIntent: Decodable {
        struct Reply: Decodable {
            /// A `StateReply` body is the record itself (docs/PROTOCOL.md §6).
            struct Body: Decodable { var version: UInt64 }

            var type: String
            var body: Body
        }

        var traceId: String
        var traceparent: String
        var reply: Reply
    }

    struct EventHeader: Decodable {
        var type: String
        var user: String?
        var traceparent: String?
    }
}
